// @ts-check
// Notes mode: the developer points at the page and writes what they mean; each confirmed note goes
// to the host with the element under it (as the snapshot writes it) and a screenshot with the
// annotations drawn on it. Loaded by the bootstrap (`n`) the first time notes mode is entered, so
// pages that never use it pay nothing. Its placeholders are filled from the Rust constants by
// scripts/build-bootstrap.mjs.
//
// The overlay is one element (`<browser-agent-notes>`, marked __UI_ATTR__, appended to <html>)
// whose closed shadow root holds everything: the page's own queries, the snapshot and command
// targeting never see inside it. The developer's input never reaches the page while notes mode is
// on: the bootstrap's capture listeners, the first of the window's, hand each trusted pointer and
// key event to `guard`, which stops it there and acts on it by its coordinates.
//
//   click            a pin note: a dot at the point and a bubble
//   drag             an area note: a dashed box and a bubble
//   type, Enter      the bubble's text; Enter confirms (and sends), Shift+Enter a new line
//   Escape           cancels the edit; with nothing edited, leaves notes mode (not when the
//                    parent frame entered it: the parent leaves with notes-exit)
//   click a bubble   selects it; drag it to move the note; click again to edit; × or Delete removes it
//
// Notes are placed in page coordinates, so they stay on what they point at when the page scrolls.

const PINK = '#DD2590';
const MOVE_PX = 5; // a press that moves less than this is a click
const agent = () => window[__GLOBAL__];
const cfg = () => agent().__F_CFG__;

let S = null; // while on: {host, root, layer, notes, cursor, edit, selected, drag, fromParent}

const CSS =
    ':host{all:initial}' +
    '.layer{position:fixed;inset:0;cursor:crosshair;box-shadow:inset 0 0 0 3px ' + PINK + ';background:rgba(221,37,144,.03)}' +
    '.tip{position:fixed;top:10px;left:50%;transform:translateX(-50%);background:' + PINK + ';color:#fff;' +
    'font:600 12px/1.3 system-ui,sans-serif;padding:5px 12px;border-radius:12px;pointer-events:none;white-space:nowrap;' +
    'box-shadow:0 1px 4px rgba(0,0,0,.3)}' +
    '.note{position:absolute;left:0;top:0}' +
    '.dot{position:absolute;width:12px;height:12px;margin:-8px 0 0 -8px;border-radius:50%;background:' + PINK + ';' +
    'border:2px solid #fff;box-shadow:0 1px 3px rgba(0,0,0,.4)}' +
    '.area{position:absolute;left:0;top:0;border:2px dashed ' + PINK + ';background:rgba(221,37,144,.08);' +
    'border-radius:4px;box-sizing:border-box}' +
    '.bubble{position:absolute;background:' + PINK + ';color:#fff;border-radius:14px;' +
    'padding:8px 12px;font:500 13px/1.4 system-ui,sans-serif;box-shadow:0 2px 8px rgba(0,0,0,.3);cursor:move;box-sizing:border-box}' +
    '.bubble textarea{all:unset;display:block;width:200px;min-height:1.4em;white-space:pre-wrap;word-break:break-word;' +
    'font:inherit;color:#fff;cursor:inherit;resize:none;overflow:hidden}' +
    '.edit .bubble textarea{cursor:text}' +
    '.bubble textarea::placeholder{color:rgba(255,255,255,.75)}' +
    '.sel .bubble,.edit .bubble{outline:2px solid #fff;box-shadow:0 0 0 4px ' + PINK + ',0 2px 8px rgba(0,0,0,.3)}' +
    '.x{position:absolute;top:-9px;right:-9px;width:20px;height:20px;border-radius:50%;background:#fff;color:' + PINK + ';' +
    'font:700 14px/20px system-ui,sans-serif;text-align:center;display:none;cursor:pointer;box-shadow:0 1px 3px rgba(0,0,0,.3)}' +
    '.sel .x{display:block}' +
    '.sent .bubble:after{content:"\\2713";position:absolute;right:8px;bottom:4px;font-size:10px;opacity:.8}' +
    '.cur{position:fixed;left:0;top:0;pointer-events:none;background:' + PINK + ';color:#fff;font:600 11px/1 system-ui,sans-serif;' +
    'padding:3px 6px;border-radius:8px;white-space:nowrap}';

// The notes module's entry: `enter`/`exit`/`toggle` (shortcut, `notes` step) and the parent
// frame's messages. Answers `{mode, notes}` (or, for notes-screenshot, what it posted back).
export async function command(cmd, message) {
    if (cfg().__F_CFG_NOTES__ === false) {
        throw new Error('notes mode is off on this host (BrowserAgent::builder().notes(false))');
    }
    if (cmd == 'enter' || cmd == __NOTES_ENTER__) enter(cmd == __NOTES_ENTER__);
    else if (cmd == 'exit' || cmd == __NOTES_EXIT__) exit();
    else if (cmd == 'toggle') S ? exit() : enter(false);
    else if (cmd == __NOTES_SCREENSHOT__) return reply();
    else if (cmd == __NOTES_CURSOR_HIDE__) S && (S.cursor.style.display = 'none');
    else throw new Error('unknown notes mode ' + JSON.stringify(cmd) + ': use "enter" or "exit"');
    return { mode: S ? 'on' : 'off', notes: S ? S.notes.filter((n) => n.sent).length : 0 };
}

function el(tag, cls, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
}

function enter(fromParent) {
    if (S) return;
    const host = document.createElement('browser-agent-notes');
    host.id = '__browser-agent-notes';
    host.setAttribute(__UI_ATTR__, '');
    host.setAttribute('style', 'all:initial;position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647');
    const root = host.attachShadow({ mode: 'closed' });
    el('style', '', root).textContent = CSS;
    const layer = el('div', 'layer', root);
    el('div', 'tip', root).textContent = 'Notes: click to pin, drag to mark an area, Enter to send' + (fromParent ? '' : ', Esc to leave');
    const cursor = el('div', 'cur', root);
    cursor.textContent = '+ note';
    cursor.style.display = 'none';
    document.documentElement.appendChild(host);
    S = { host, root, layer, cursor, notes: [], edit: null, selected: null, drag: null, fromParent };
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    if (active && active != document.body && active.blur) active.blur();
    agent().__F_GUARD__ = guard;
}

function exit() {
    if (!S) return;
    S.host.remove();
    S = null;
    agent().__F_GUARD__ = 0;
}

// ---- notes on the page ----

function place(n) {
    n.group.style.transform = 'translate(' + n.x + 'px,' + n.y + 'px)';
    if (n.kind == 'area') {
        n.shape.style.width = n.w + 'px';
        n.shape.style.height = n.h + 'px';
        n.bubble.style.left = '0px';
        n.bubble.style.top = n.h + 8 + 'px';
    } else {
        n.bubble.style.left = '14px';
        n.bubble.style.top = '10px';
    }
}

function create(kind, x, y, w, h) {
    const n = { nid: Math.random().toString(36).slice(2, 12), kind, x, y, w, h, text: '', sent: false, sentText: '' };
    n.group = el('div', 'note', S.root);
    n.shape = el('div', kind == 'area' ? 'area' : 'dot', n.group);
    n.bubble = el('div', 'bubble', n.group);
    n.ta = el('textarea', '', n.bubble);
    n.ta.placeholder = kind == 'area' ? 'What is wrong here?' : 'What should change?';
    n.ta.maxLength = __MAX_NOTE_TEXT__;
    n.ta.rows = 1;
    n.ta.addEventListener('input', () => grow(n));
    n.x_ = el('div', 'x', n.bubble);
    n.x_.textContent = '\u00d7';
    S.notes.push(n);
    place(n);
    edit(n);
    return n;
}

function grow(n) {
    n.ta.style.height = 'auto';
    n.ta.style.height = n.ta.scrollHeight + 'px';
}

function select(n) {
    if (S.selected && S.selected != n) S.selected.group.classList.remove('sel');
    S.selected = n;
    if (n) n.group.classList.add('sel');
}

function edit(n) {
    select(null);
    S.edit = n;
    n.group.classList.add('edit');
    n.ta.readOnly = false;
    n.ta.focus();
    n.ta.setSelectionRange(n.ta.value.length, n.ta.value.length);
}

function stopEditing(n) {
    n.group.classList.remove('edit');
    n.ta.readOnly = true;
    n.ta.blur();
    S.edit = null;
}

// Enter: the text is the note's; a new or changed note is sent. An empty one is removed.
function confirm(n) {
    const text = n.ta.value.trim();
    stopEditing(n);
    if (!text) return remove(n);
    n.text = n.ta.value = text;
    grow(n);
    if (text != n.sentText) send(n);
}

// Escape: a new note goes, an old one keeps its text.
function cancel(n) {
    stopEditing(n);
    if (!n.text) return remove(n);
    n.ta.value = n.text;
    grow(n);
}

function remove(n) {
    n.group.remove();
    S.notes = S.notes.filter((o) => o != n);
    if (S.selected == n) S.selected = null;
    if (S.edit == n) S.edit = null;
    if (n.sent) post({ nid: n.nid, deleted: true }).catch(() => {});
}

// ---- input (handed over by the bootstrap before the page sees it) ----

function noteAt(target) {
    return S.notes.find((n) => n.group.contains(target));
}

function guard(e) {
    e.stopImmediatePropagation();
    const t = e.type;
    if (t[0] == 'k') return key(e);
    const hit = S.root.elementFromPoint(e.clientX, e.clientY);
    const n = hit && noteAt(hit);
    const typing = n && n == S.edit && hit == n.ta;
    if (t == 'pointermove') {
        const c = S.cursor;
        c.style.display = n ? 'none' : '';
        c.style.transform = 'translate(' + (e.clientX + 14) + 'px,' + (e.clientY + 14) + 'px)';
        drag(e);
        return;
    }
    // Pressing in the text being edited places the caret (the browser's default); nothing else
    // does anything the page could notice (focus, selection, activation, menus).
    if (!(typing && (t == 'pointerdown' || t == 'mousedown' || t == 'mouseup' || t == 'click'))) e.preventDefault();
    if (t == 'pointerdown' && e.button == 0 && !typing) down(e, hit, n);
    else if (t == 'pointerup' && S.drag) up(e);
    else if (t == 'pointercancel') drawing(null), (S.drag = null);
}

function down(e, hit, n) {
    if (S.edit && S.edit != n) confirm(S.edit);
    if (n && hit == n.x_) return remove(n);
    const at = { sx: e.pageX, sy: e.pageY, moved: false };
    if (n) {
        S.drag = Object.assign(at, { note: n, ox: n.x, oy: n.y, was: S.selected == n || S.edit == n });
        if (S.edit != n) select(n);
    } else {
        select(null);
        S.drag = at;
    }
}

function drag(e) {
    const d = S.drag;
    if (!d) return;
    const dx = e.pageX - d.sx, dy = e.pageY - d.sy;
    if (!d.moved && Math.abs(dx) < MOVE_PX && Math.abs(dy) < MOVE_PX) return;
    d.moved = true;
    if (d.note) {
        d.note.x = d.ox + dx;
        d.note.y = d.oy + dy;
        place(d.note);
    } else drawing(box(d, e));
}

function box(d, e) {
    return { x: Math.min(d.sx, e.pageX), y: Math.min(d.sy, e.pageY), w: Math.abs(e.pageX - d.sx), h: Math.abs(e.pageY - d.sy) };
}

// The dashed box while dragging (null removes it).
function drawing(b) {
    if (!b) return S.rubber && (S.rubber.remove(), (S.rubber = null));
    if (!S.rubber) S.rubber = el('div', 'area', S.root);
    S.rubber.style.transform = 'translate(' + b.x + 'px,' + b.y + 'px)';
    S.rubber.style.position = 'absolute';
    S.rubber.style.width = b.w + 'px';
    S.rubber.style.height = b.h + 'px';
}

function up(e) {
    const d = S.drag;
    S.drag = null;
    drawing(null);
    if (d.note) {
        if (d.moved) {
            if (d.note.sent && S.edit != d.note) send(d.note);
        } else if (d.was && S.edit != d.note) edit(d.note);
        return;
    }
    const b = box(d, e);
    if (d.moved && b.w > 8 && b.h > 8) create('area', b.x, b.y, b.w, b.h);
    else create('pin', d.sx, d.sy);
}

function key(e) {
    const n = S.edit;
    const k = e.key;
    if (n && S.root.activeElement == n.ta) {
        if (e.type == 'keydown' && k == 'Enter' && !e.shiftKey) e.preventDefault(), confirm(n);
        else if (e.type == 'keydown' && k == 'Escape') e.preventDefault(), cancel(n);
        return; // typing: the browser's default puts the character in the bubble
    }
    if (!/^(Arrow|Page|Home$|End$)/.test(k)) e.preventDefault();
    if (e.type != 'keydown') return;
    if (k == 'Escape') {
        if (n) cancel(n);
        else if (S.selected) select(null);
        else if (!S.fromParent) exit();
    } else if ((k == 'Delete' || k == 'Backspace') && S.selected) remove(S.selected);
    else if (k == 'Enter' && S.selected) edit(S.selected);
}

// ---- to the host ----

function own() {
    const c = cfg();
    const origin = location.origin == 'null' ? '' : location.origin;
    return { c, base: origin + c.__F_CFG_PREFIX__, fetch: agent().__F_ORIGINALS__.__F_ORIGINAL_FETCH__ };
}

async function post(body) {
    const { c, base, fetch } = own();
    const res = await fetch.call(window, base + __NOTES_PATH__ + '?' + __CLIENT_PARAM__ + '=' + agent().__F_CLIENT_ID__, {
        method: 'POST',
        cache: 'no-store',
        headers: { [__KEY_HEADER__]: c.__F_CFG_KEY__, 'content-type': 'application/json' },
        body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error((await res.json()).error || 'the host refused the note (' + res.status + ')');
}

// The page element at a viewport point (the overlay left out), or the nearest one meaning it.
function under(x, y) {
    return document.elementsFromPoint(x, y).find((e) => !e.closest('[' + __UI_ATTR__ + ']'));
}

function describe(e, exact) {
    const d = agent().__F_DESCRIBE__;
    return e ? (d ? d(e, !!exact) : e.localName) : '';
}

// What an area note's `element` holds at most (the host keeps 300 characters of it).
const AREA_TEXT = 300;
// Roles whose line is the element (their name is their content, as in the snapshot).
const ONE_LINE = /^(heading|link|button|cell|columnheader|rowheader|option|tab|menuitem\w*|checkbox|radio|switch|textbox|searchbox|combobox|slider|spinbutton|img|clickable|status|alert|paragraph|label|code|term|definition|caption|figure)\b/;

// The element an area is about: the outermost one around its centre that lies inside it (the
// card drawn around), else the one under its centre.
function areaElement(b) {
    let e = under(b.x + b.w / 2, b.y + b.h / 2);
    const inside = (r) => r.left >= b.x - 2 && r.top >= b.y - 2 && r.right <= b.x + b.w + 2 && r.bottom <= b.y + b.h + 2;
    while (e && e.parentElement && e.parentElement !== document.body && e.parentElement !== document.documentElement && inside(e.parentElement.getBoundingClientRect())) e = e.parentElement;
    return e;
}

// An element as the snapshot reads it: one line per node, in order, nested by two spaces under a
// container with a role of its own; refs where the snapshot has them (`heading "PlanPro"`,
// `"— 12 seats"`, `button "Upgrade" [ref=e9]`), where its one name ran its block children
// together ("PlanPro— 12 seatsUpgrade"). At most AREA_TEXT characters, cut at a line.
function areaText(root) {
    const lines = [];
    let size = 0;
    let cut = false;
    const push = (depth, line) => {
        if (cut) return;
        const text = '  '.repeat(depth) + line;
        if (size + text.length + 1 > AREA_TEXT - 2) {
            cut = true;
            return;
        }
        lines.push(text);
        size += text.length + 1;
    };
    const quote = (t) => JSON.stringify(t.length > 80 ? t.slice(0, 79) + '\u2026' : t);
    const walk = (n, depth) => {
        for (let c = n.firstChild; c && !cut; c = c.nextSibling) {
            if (c.nodeType === 3) {
                const t = c.data.replace(/\s+/g, ' ').trim();
                if (t) push(depth, quote(t));
                continue;
            }
            if (c.nodeType !== 1 || c.closest('[' + __UI_ATTR__ + ']')) continue;
            if (!c.getClientRects().length || c.getAttribute('aria-hidden') === 'true') continue;
            const d = describe(c, true);
            if (!d) continue;
            if (/\[ref=/.test(d) || !c.firstElementChild || ONE_LINE.test(d)) push(depth, d);
            else if (d[0] === '"') walk(c, depth);
            else {
                // A container with a role (a list, a form): its role, its nodes under it.
                push(depth, d.split(' ')[0]);
                walk(c, depth + 1);
            }
        }
    };
    const d = describe(root, true);
    if (!root.firstElementChild || /\[ref=/.test(d) || ONE_LINE.test(d)) return d;
    if (d[0] === '"') walk(root, 0);
    else {
        push(0, d.split(' ')[0]);
        walk(root, 1);
    }
    if (cut) lines.push('\u2026');
    return lines.length ? lines.join('\n') : d;
}

// What an area holds: the elements inside it that an agent acts on (they have refs) and headings
// (those with refs also into `els`, for their source locations).
function inside(b, els) {
    const out = [];
    const all = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < all.length && i < 20000 && out.length < __MAX_NOTE_ELEMENTS__; i++) {
        const r = all[i].getBoundingClientRect();
        if (!r.width || !r.height || r.left < b.x - 2 || r.top < b.y - 2 || r.right > b.x + b.w + 2 || r.bottom > b.y + b.h + 2) continue;
        const d = describe(all[i]);
        if ((/\[ref=/.test(d) || /^heading /.test(d)) && out.indexOf(d) < 0) {
            out.push(d);
            if (/\[ref=/.test(d)) els.push(all[i]);
        }
    }
    return out;
}

// Where the note's elements are rendered, in a development build (the source module, loaded on
// first use; docs/source-locations.md); '' when it cannot load.
async function sourceOf(els) {
    try {
        const c = cfg();
        const m = await agent().__F_LOAD__(c.__F_CFG_PREFIX__ + __ASSETS_DIR__ + __LAZY_SOURCE__ + '-' + c.__F_CFG_REV__.slice(0, 12) + '.js');
        return await m.summary(els);
    } catch (e) {
        return '';
    }
}

async function send(n) {
    // Notes name elements as the snapshot does: that is the hands' code, loaded on first use.
    const hands = agent().__F_HANDS__;
    if (hands) await hands().catch(Boolean);
    const vx = scrollX, vy = scrollY;
    const note = {
        nid: n.nid,
        kind: n.kind,
        text: n.text,
        url: location.href,
        viewport: { w: innerWidth, h: innerHeight, scrollX: vx, scrollY: vy },
    };
    /** @type {Element[]} */
    const els = [];
    if (n.kind == 'pin') {
        note.point = { x: n.x - vx, y: n.y - vy };
        const e = under(note.point.x, note.point.y);
        note.element = describe(e);
        if (e) els.push(e);
    } else {
        const b = (note.box = { x: n.x - vx, y: n.y - vy, w: n.w, h: n.h });
        const e = areaElement(b);
        note.element = e ? areaText(e) : '';
        note.elements = inside(b, els);
        if (!els.length && e) els.push(e);
    }
    note.source = await sourceOf(els);
    n.sentText = n.text;
    try {
        note.screenshot = (await upload(await annotated())).id;
    } catch (e) {
        note.screenshotError = String((e && e.message) || e);
    }
    try {
        await post(note);
        n.sent = true;
        n.group.classList.add('sent');
    } catch (e) {
        n.sentText = '';
        agent().__F_ORIGINALS__.__F_ORIGINAL_WARN__.call(console, '[browser-agent] note not sent:', e);
    }
}

// The viewport with every note drawn on it (the screenshot module captures the page without the
// overlay; the notes are painted over it here).
/** @typedef {HTMLCanvasElement & {ms?: number, method?: string}} Shot the canvas, with how long the capture took and its method */
/** @returns {Promise<Shot>} */
async function annotated() {
    const c = cfg();
    const m = await agent().__F_LOAD__(c.__F_CFG_PREFIX__ + __ASSETS_DIR__ + __LAZY_SCREENSHOT__ + '-' + c.__F_CFG_REV__.slice(0, 12) + '.js');
    const shot = await m.capture({ format: 'png' });
    const img = await createImageBitmap(shot.blob);
    /** @type {Shot} */
    const canvas = document.createElement('canvas');
    canvas.width = shot.width;
    canvas.height = shot.height;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    g.scale(shot.width / innerWidth, shot.width / innerWidth);
    for (const n of S ? S.notes : []) paint(g, n);
    canvas.ms = shot.ms;
    canvas.method = shot.method;
    return canvas;
}

function rounded(g, x, y, w, h, r) {
    g.beginPath();
    if (g.roundRect) g.roundRect(x, y, w, h, r);
    else g.rect(x, y, w, h);
}

function paint(g, n) {
    const x = n.x - scrollX, y = n.y - scrollY;
    g.save();
    g.fillStyle = PINK;
    g.strokeStyle = PINK;
    g.lineWidth = 2;
    if (n.kind == 'area') {
        g.setLineDash([6, 4]);
        g.fillStyle = 'rgba(221,37,144,.08)';
        rounded(g, x, y, n.w, n.h, 4);
        g.fill();
        g.stroke();
        g.setLineDash([]);
    } else {
        g.beginPath();
        g.arc(x, y, 8, 0, 7);
        g.fill();
        g.strokeStyle = '#fff';
        g.stroke();
    }
    const r = n.bubble.getBoundingClientRect();
    g.fillStyle = PINK;
    rounded(g, r.left, r.top, r.width, r.height, 14);
    g.fill();
    g.fillStyle = '#fff';
    g.font = '500 13px system-ui,sans-serif';
    g.textBaseline = 'top';
    let line = '', ty = r.top + 8;
    for (const word of (n.ta.value || n.ta.placeholder).split(/(\s+)/)) {
        if (line && g.measureText(line + word).width > r.width - 24) {
            g.fillText(line, r.left + 12, ty);
            (line = word.trim()), (ty += 18);
        } else line += word;
    }
    g.fillText(line, r.left + 12, ty);
    g.restore();
}

/** @param {Shot} canvas */
async function upload(canvas) {
    const { c, base, fetch } = own();
    const blob = await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
    const q = new URLSearchParams();
    q.append(__CLIENT_PARAM__, agent().__F_CLIENT_ID__);
    q.append(__WIDTH__, canvas.width);
    q.append(__HEIGHT__, canvas.height);
    q.append(__MS__, Math.round(canvas.ms || 0));
    q.append(__METHOD__, canvas.method || 'foreignobject');
    q.append(__PAGE__, location.href);
    const res = await fetch.call(window, base + __SCREENSHOTS_PATH__ + '?' + q, {
        method: 'POST',
        cache: 'no-store',
        headers: { [__KEY_HEADER__]: c.__F_CFG_KEY__, 'content-type': 'image/png' },
        body: blob,
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.error || 'the host refused the screenshot (' + res.status + ')');
    return answer;
}

// notes-screenshot: the viewport with the notes, as a PNG data URL, posted back to the parent.
async function reply() {
    let answer;
    try {
        answer = { image: (await annotated()).toDataURL('image/png') };
    } catch (e) {
        answer = { error: String((e && e.message) || e) };
    }
    const origin = cfg().__F_CFG_NOTES_ORIGIN__ || '*';
    if (parent != window) parent.postMessage(Object.assign({ channel: __NOTES_CHANNEL__, command: __NOTES_SCREENSHOT_RESULT__ }, answer), origin);
    return answer;
}
