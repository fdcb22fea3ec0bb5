// The sensor's click entries (`interaction`, named `role "name"`), as the page records them: the
// placeholder-filled, unminified bootstrap and sensor evaluated in a node:vm context with a minimal
// fake window, then a click dispatched to the sensor's own listener with fake elements. The sensor
// is run as it is (no test hook): what it stamps is read by replacing the global's stamp function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { filled, fillText } from './fill.mjs';

const bootstrap = filled('browser-agent-client/bootstrap/bootstrap.js');
const sensor = filled('browser-agent-client/sensor/sensor.js');
const [GLOBAL, STAMP] = JSON.parse(fillText('[__GLOBAL__, "__F_STAMP__"]'));

// The selector the sensor climbs to (`closest`), as a test of one element.
const CLICKABLE = (e) =>
    ['button', 'input', 'select', 'textarea', 'summary', 'label'].includes(e.tag) ||
    (e.tag == 'a' && 'href' in e.attrs) ||
    'role' in e.attrs ||
    'onclick' in e.attrs ||
    'tabindex' in e.attrs;

// The rows a control named only by a glyph names (the protocol's `ROWS`), as a test of one element.
const ROWS_SELECTOR = JSON.parse(fillText('__ROWS__'));
const ROW = (e) =>
    ['li', 'tr', 'article'].includes(e.tag) || ['row', 'listitem', 'option', 'treeitem', 'article'].includes(e.attrs.role);

// A fake element: `tag`, attributes, and what the sensor reads of it.
function el(tag, attrs = {}, { text = '', labels, value, children = [] } = {}) {
    const e = {
        nodeType: 1,
        tag,
        tagName: tag.toUpperCase(),
        attrs,
        id: attrs.id || '',
        type: (attrs.type || (tag == 'input' ? 'text' : '')).toLowerCase(),
        value: value ?? attrs.value ?? '',
        multiple: 'multiple' in attrs,
        size: +(attrs.size || 0),
        labels: labels && labels.map((t) => ({ textContent: t })),
        parentElement: null,
        getAttribute: (n) => (n in attrs ? attrs[n] : null),
        hasAttribute: (n) => n in attrs,
        closest(selector) {
            const test = selector == ROWS_SELECTOR ? ROW : CLICKABLE;
            for (let at = e; at; at = at.parentElement) if (test(at)) return at;
            return null;
        },
    };
    for (const c of children) c.parentElement = e;
    Object.defineProperty(e, 'textContent', { get: () => text + children.map((c) => c.textContent).join('') });
    return e;
}

// A page with the bootstrap and the sensor started; `click(target)` returns the entry it stamps.
function page(byId = {}) {
    const context = vm.createContext({});
    const win = vm.runInContext('this', context);
    const noop = () => {};
    const listeners = {};
    const never = () => vm.runInContext('new Promise(() => {})', context);
    Object.assign(win, {
        window: win,
        location: { href: 'http://app.test/', origin: 'http://app.test' },
        history: {},
        navigator: {},
        crypto: { getRandomValues: (bytes) => bytes },
        Node: vm.runInContext('(class Node {})', context),
        URL,
        AbortController,
        encodeURIComponent,
        addEventListener: noop,
        // Nothing the sensor sends is answered, and no timer fires: only the click runs.
        fetch: never,
        setTimeout: () => 0,
        setInterval: () => 0,
        clearTimeout: noop,
        document: {
            URL: 'http://app.test/',
            title: 'App',
            readyState: 'complete',
            hidden: false,
            hasFocus: () => true,
            addEventListener: (type, f) => (listeners[type] = f),
            getElementById: (id) => byId[id] || null,
            currentScript: { getAttribute: () => JSON.stringify({ key: 'k', prefix: '/_ba', rev: '0123456789abcdef' }) },
        },
        console: vm.runInContext('({' + 'log info warn error debug assert count time timeLog timeEnd dir table trace'.split(' ').map((m) => m + '() {}') + '})', context),
    });
    win.parent = win;
    vm.runInContext(bootstrap, context, { filename: 'bootstrap.js' });
    vm.runInContext(sensor, context, { filename: 'sensor.js' });
    assert.equal(typeof listeners.click, 'function', 'the sensor listens for clicks');
    return (target) => {
        let stamped;
        win[GLOBAL][STAMP] = (entry) => (stamped = entry);
        listeners.click({ composedPath: () => [target] });
        return stamped;
    };
}

const click = page();
const label = (target) => click(target).target;

test('a click is an interaction entry with the label and the text', () => {
    const entry = click(el('button', {}, { text: '  Save \n changes ' }));
    assert.equal(entry.type, 'interaction');
    assert.equal(entry.event, 'click');
    assert.equal(entry.target, 'button "Save changes"');
    assert.equal(entry.text, 'Save changes');
});

test('roles: buttons, links, inputs by type, select, explicit roles', () => {
    assert.equal(label(el('a', { href: '/home' }, { text: 'Home' })), 'link "Home"');
    assert.equal(label(el('summary', {}, { text: 'More' })), 'button "More"');
    assert.equal(label(el('input', { type: 'checkbox' }, { labels: ['Accept'] })), 'checkbox "Accept"');
    assert.equal(label(el('input', { type: 'range', 'aria-label': 'Volume' })), 'slider "Volume"');
    assert.equal(label(el('select', { 'aria-label': 'Size' })), 'combobox "Size"');
    assert.equal(label(el('select', { multiple: '', 'aria-label': 'Sizes' })), 'listbox "Sizes"');
    assert.equal(label(el('div', { role: 'menuitem checkbox' }, { text: 'Bold' })), 'menuitem "Bold"');
    assert.equal(label(el('div', { role: 'tab' }, { text: 'Settings' })), 'tab "Settings"');
});

test('names: labels, aria-label, aria-labelledby, a submit button, placeholder, title', () => {
    assert.equal(label(el('input', {}, { labels: ['Email', ' address '] })), 'textbox "Email address"');
    assert.equal(label(el('button', { 'aria-label': 'Close dialog' }, { text: '×' })), 'button "Close dialog"');
    assert.equal(label(el('input', { type: 'submit' })), 'button "Submit"');
    assert.equal(label(el('input', { type: 'button', value: 'Go' })), 'button "Go"');
    assert.equal(label(el('input', { type: 'search', placeholder: 'Find…' })), 'searchbox "Find…"');
    assert.equal(label(el('textarea', { title: 'Comment' })), 'textbox "Comment"');
    // A textbox is not named by its content.
    assert.equal(label(el('textarea', {}, { text: 'typed text' })), 'textbox');
    // A control named only by a glyph names its row, without the row's glyphs.
    const remove = el('button', {}, { text: '✖' });
    el('li', {}, { text: 'Buy milk ', children: [remove] });
    assert.equal(label(remove), 'button "✖" in "Buy milk"');
    const save = el('button', {}, { text: 'Save' });
    el('li', {}, { text: 'Buy milk ', children: [save] });
    assert.equal(label(save), 'button "Save"');
    const byId = { first: { textContent: 'Delete' }, second: { textContent: 'the \n file' } };
    const clickIn = page(byId);
    assert.equal(clickIn(el('button', { 'aria-labelledby': 'first second missing' }, { text: 'x' })).target, 'button "Delete the file"');
});

test('no role: the text, or tag#id, or the tag; presentation roles count as none', () => {
    assert.equal(label(el('a', {}, { text: 'not a link' })), '"not a link"');
    assert.equal(label(el('div', { id: 'pane', tabindex: '0' })), 'div#pane');
    assert.equal(label(el('div', { role: 'presentation', onclick: '' })), 'div');
    assert.equal(label(el('input', { type: 'hidden', id: 'token' })), 'input#token');
});

test('the nearest clickable ancestor is named, and names are cut at 60 characters', () => {
    const icon = el('span', {}, { text: 'Send' });
    el('button', {}, { children: [icon] });
    assert.equal(label(icon), 'button "Send"');
    const long = label(el('button', {}, { text: 'word '.repeat(20) }));
    assert.equal(long, 'button "' + 'word '.repeat(20).trim().slice(0, 57) + '..."');
});
