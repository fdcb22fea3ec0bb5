// The inline bootstrap's console capture, as the page runs it: the placeholder-filled, unminified
// bootstrap evaluated in a node:vm context with a minimal fake window, then console calls made
// inside that context and the entry they queue read from the global (`window.__browserAgent.q`).
//
//   node --test browser-agent-client/js-tests/   (scripts/js-check runs it)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { filled, fillText } from './fill.mjs';

const source = filled('browser-agent-client/bootstrap/bootstrap.js');
// The global's name and its fields, as the build names them (from the Rust constants).
const [GLOBAL, QUEUE] = JSON.parse(fillText('[__GLOBAL__, "__F_QUEUE__"]'));

// A fresh page: the bootstrap installed in a new context whose global is a minimal window.
function page() {
    const context = vm.createContext({});
    const win = vm.runInContext('this', context);
    const noop = () => {};
    Object.assign(win, {
        window: win,
        location: { href: 'http://app.test/', origin: 'http://app.test' },
        history: {},
        crypto: { getRandomValues: (bytes) => bytes },
        Node: vm.runInContext('(class Node {})', context),
        URL,
        encodeURIComponent,
        addEventListener: noop,
        document: {
            URL: 'http://app.test/',
            readyState: 'complete',
            hidden: false,
            addEventListener: noop,
            // The tag's config; no `client`, so the bootstrap does not import the sensor.
            currentScript: { getAttribute: () => JSON.stringify({ key: 'k', prefix: '/_ba', rev: '0123456789abcdef' }) },
        },
        console: vm.runInContext(
            '({' + 'log info warn error debug assert count time timeLog timeEnd dir table trace'.split(' ').map((m) => m + '() {}') + '})',
            context,
        ),
    });
    vm.runInContext(source, context, { filename: 'bootstrap.js' });
    assert.ok(win[GLOBAL], 'the bootstrap installed its global');
    return { context, win };
}

const shared = page();

// The texts `code` (console calls, run inside the page) recorded in its last queued entry.
function logged(code, p = shared) {
    const queue = p.win[GLOBAL][QUEUE];
    const before = queue.length;
    vm.runInContext(code, p.context);
    assert.equal(queue.length, before + 1, 'one entry queued');
    const [entry] = queue[queue.length - 1];
    // A copy made in this realm (the context's arrays have another Array.prototype).
    return JSON.parse(JSON.stringify(entry));
}
const args = (code) => logged(code).args;

test('a console call queues a console entry, stamped, with its level', () => {
    const entry = logged("console.warn('careful', 2)");
    assert.equal(entry.type, 'console');
    assert.equal(entry.level, 'warn');
    assert.deepEqual(entry.args, ['careful', '2']);
    assert.equal(entry.page, 'http://app.test/');
    assert.equal(typeof entry.seq, 'number');
});

test('objects are bounded JSON: depth 4, then [Object] / [Array]', () => {
    assert.deepEqual(args('console.log({a: {b: {c: {d: {e: 1}}}}})'), ['{"a":{"b":{"c":{"d":"[Object]"}}}}']);
    assert.deepEqual(args('console.log([[[[[1]]]]])'), ['[[[["[Array]"]]]]']);
});

test('30 items a level, then "… N more"', () => {
    const [arr] = args('console.log(Array.from({length: 35}, (_, i) => i))');
    assert.equal(arr, '[' + [...Array(30).keys()].join(',') + ',"\u2026 5 more"]');
    const [obj] = args('console.log(Object.fromEntries(Array.from({length: 32}, (_, i) => ["k" + i, i])))');
    assert.ok(obj.endsWith(',"k29":29,"\u2026":"2 more"}'), obj);
});

test('about 2,000 characters in all, then …', () => {
    const [text] = args('console.log(Array.from({length: 30}, () => "x".repeat(200)))');
    assert.ok(text.length > 2000 && text.length < 2400, 'length ' + text.length);
    assert.ok(text.endsWith('\u2026]'), text.slice(-20));
});

test('cycles are "[Circular]"', () => {
    assert.deepEqual(args('var a = {n: 1}; a.self = a; a.list = [a]; console.log(a)'), [
        '{"n":1,"self":"[Circular]","list":["[Circular]"]}',
    ]);
});

test('accessors are named, never run', () => {
    const p = page();
    const entry = logged(
        'var ran = 0; console.log({get g() { ran++; return 1; }, set s(v) {}, get gs() { ran++; }, set gs(v) {}, v: 2}); globalThis.ranAfter = ran;',
        p,
    );
    assert.deepEqual(entry.args, ['{"g":"[Getter]","s":"[Setter]","gs":"[Getter/Setter]","v":2}']);
    assert.equal(p.win.ranAfter, 0, 'no getter ran');
});

test('strings are cut at 300 inside objects, 4,000 at the top level', () => {
    const [inner] = args('console.log({s: "y".repeat(400)})');
    assert.equal(inner, '{"s":"' + 'y'.repeat(300) + '\u2026"}');
    const [top] = args('console.log("z".repeat(5000))');
    assert.equal(top, 'z'.repeat(4000));
});

test('errors: the stack at the top level, `Name: message` inside', () => {
    const [top, inside] = args('var e = new TypeError("boom"); e.stack = "TypeError: boom\\n    at f (app.js:1:2)"; console.log(e, {e})');
    assert.equal(top, 'TypeError: boom\n    at f (app.js:1:2)');
    assert.equal(inside, '{"e":"TypeError: boom"}');
});

test('%s %d %i %f %o %O %c are substituted, %% is a percent sign', () => {
    assert.deepEqual(args('console.log("%s is %d (%i) %f%%, %cstyled %o %O", "Bob", 42.7, "7x", "1.5", "color: red", {a: 1}, [2], "rest")'), [
        'Bob is 42 (7) 1.5%, styled {"a":1} [2]',
        'rest',
    ]);
    assert.deepEqual(args('console.log("%s and %s", "one")'), ['one and %s'], 'a missing argument leaves its directive');
});

test("console.table's grid: header, rows, padded columns, a Value column", () => {
    assert.deepEqual(args('console.table([{a: 1, b: "x"}, {a: 22}, 3])'), [
        ['(index) | a  | b   | Value', '0       | 1  | \'x\' |', '1       | 22 |     |', '2       |    |     | 3'].join('\n'),
    ]);
    const [many] = args('console.table(Array.from({length: 32}, (_, i) => ({i})))');
    assert.ok(many.endsWith('\n\u2026 2 more'), many.slice(-30));
});
