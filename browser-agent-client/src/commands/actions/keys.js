// @ts-check
// What a key does that synthetic key events do not, where it needs no text editing (it was Rust
// in the code every page loads), loaded on the first key that needs it: the order Tab moves in,
// closing the top modal dialog or open popover on Escape, what arrow keys, Home, End, PageUp and
// PageDown do to a native control or a caret (Chromium's keydown defaults), and Enter's implicit
// submission of a form. The client does the rest (which of the elements can be used, the focus and
// its events). Arrays are filled by index and sorted by hand, and read by loops: pages replace the
// Array methods.

// What Tab may reach by its markup.
const REACHABLE =
    'a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable=""],[contenteditable=true]';

// What `key` does on `el`: for Tab (`back`: Shift+Tab), the elements it may move to, in the order
// it tries them from `el` (round to `el` itself), which the client takes the first usable of;
// for Escape, none: the top modal dialog or open popover is closed (the browser's `cancel` first).
export function act(el, key, back) {
    const doc = el.ownerDocument;
    if (key == 'Escape') {
        escape(doc);
        return [];
    }
    const all = order(doc);
    const n = all.length;
    let at = -1;
    for (let i = 0; i < n; i++) if (all[i] === el) at = i;
    // From the focused element, or from before the first (after the last).
    if (at < 0) at = back ? n : -1;
    const out = [];
    for (let step = 1; step <= n; step++) out[step - 1] = all[(at + (back ? n - step : step) + n) % n];
    return out;
}

// The elements of `doc` Tab reaches by their markup, in its order: a positive `tabindex` first
// (by value, then in document order), then the rest in document order.
function order(doc) {
    const list = doc.querySelectorAll(REACHABLE);
    const out = [];
    let n = 0;
    for (let i = 0; i < list.length; i++) {
        const e = list[i];
        if (e.tabIndex >= 0 && !e.matches(':disabled') && e.type != 'hidden') out[n++] = e;
    }
    const key = (e) => (e.tabIndex > 0 ? e.tabIndex : Infinity);
    // A stable insertion sort: nearly all keys are equal, so it moves almost nothing.
    for (let i = 1; i < n; i++) {
        for (let j = i; j > 0 && key(out[j - 1]) > key(out[j]); j--) {
            const e = out[j];
            out[j] = out[j - 1];
            out[j - 1] = e;
        }
    }
    return out;
}

// Escape: the browser closes the topmost modal dialog (its `cancel` first) or open popover.
function escape(doc) {
    const kinds = ['dialog:modal', '[popover]:popover-open'];
    for (let k = 0; k < kinds.length; k++) {
        const open = doc.querySelectorAll(kinds[k]);
        if (!open.length) continue;
        const top = open[open.length - 1];
        const how = ['requestClose', 'close', 'hidePopover'];
        for (let m = 0; m < how.length; m++) {
            if (typeof top[how[m]] == 'function') return void top[how[m]]();
        }
        return;
    }
}

// The keys that move in a control, by its kind, each with what it does there (Chromium's keydown
// defaults: `select_type.cc`, `radio_input_type.cc`, `range_input_type.cc`, `text_field_input_type.cc`,
// and its editing key bindings for a caret).
// select: [direction, how many usable options on (0: the first or the last)];
// radio: the direction in the group (right and left swap in right-to-left text);
// number: a step up or down (`stepUp`, from the value, or from 0 held in min and max when empty);
// range: [what to add: `s` a step, `b` a tenth of the range (at least a step), `e` to an end],
//   its sign, and `x` for right and left, which swap in right-to-left text and on a vertical
//   slider (where Home is the top);
// text: [direction of `Selection.modify`, its granularity, with Control].
const MOVES = {
    select: {
        ArrowDown: [1, 1],
        ArrowRight: [1, 1],
        ArrowUp: [-1, 1],
        ArrowLeft: [-1, 1],
        PageDown: [1, 3],
        PageUp: [-1, 3],
        Home: [1, 0],
        End: [-1, 0],
    },
    radio: { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 },
    number: { ArrowUp: 1, ArrowDown: -1 },
    range: {
        ArrowUp: ['s', 1],
        ArrowRight: ['s', 1, 'x'],
        ArrowDown: ['s', -1],
        ArrowLeft: ['s', -1, 'x'],
        PageUp: ['b', 1],
        PageDown: ['b', -1],
        Home: ['e', -1],
        End: ['e', 1],
    },
    text: {
        ArrowLeft: ['left', 'character', 'word'],
        ArrowRight: ['right', 'character', 'word'],
        ArrowUp: ['backward', 'line', ''],
        ArrowDown: ['forward', 'line', ''],
        Home: ['backward', 'lineboundary', 'documentboundary'],
        End: ['forward', 'lineboundary', 'documentboundary'],
    },
};

// The input types whose Enter submits a form that has no submit button, when they are its only
// such field (the HTML spec's fields that block implicit submission).
const BLOCKING = ' text search tel url email password date month week time datetime-local number ';

// The kind of control `el` is for the keys in MOVES (date and time fields, whose arrows step the
// part in focus, are none).
function kindOf(el) {
    const tag = el.localName;
    if (tag == 'select') return el.multiple ? '' : 'select';
    if (tag == 'input') {
        const t = el.type;
        if (t == 'radio' || t == 'number' || t == 'range') return t;
        return ' text search tel url email password '.indexOf(' ' + t + ' ') >= 0 ? 'text' : '';
    }
    return tag == 'textarea' || el.isContentEditable ? 'text' : '';
}

// Whether `el`'s text runs right to left.
const rtl = (el) => getComputedStyle(el).direction == 'rtl';

// Fires what a person's change of `el` fires: `input`, then `change`.
function changed(el) {
    const win = el.ownerDocument.defaultView;
    el.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new win.Event('change', { bubbles: true }));
}

// What `key` does on `el`, the focused control, with Shift (`shift`) or Control (`ctrl`) held: a
// select's option, a number's or a range's value (with the events a person's change fires), a
// caret or a text selection, each done here; for a radio, the radio of its group to move to,
// which the client focuses and clicks (the browser does both). Otherwise nothing.
export function control(el, key, shift, ctrl) {
    if (el.localName == 'select' && el.multiple) return void listbox(el, key, shift, ctrl);
    const kind = kindOf(el);
    const move = kind ? MOVES[kind][key] : undefined;
    // A key no control takes scrolls (a radio's Home and End, a checkbox's, a button's, a link's;
    // PageUp and PageDown in a one-line text or number field too).
    const paging = (key == 'PageUp' || key == 'PageDown') && el.localName == 'input' && (kind == 'text' || kind == 'number');
    if (move === undefined && !ctrl && (!typing(el) || paging)) return void scroll(el, key, shift);
    if (move === undefined || (ctrl && kind != 'text')) return null;
    if (kind == 'select') {
        const o = option(el, move[0], move[1]);
        if (o && !o.selected) {
            o.selected = true;
            changed(el);
        }
    } else if (kind == 'radio') {
        return radio(el, rtl(el) && (key == 'ArrowLeft' || key == 'ArrowRight') ? -move : move);
    } else if (kind == 'text') {
        if (!move[2] && ctrl) return null;
        const sel = el.ownerDocument.defaultView.getSelection();
        if (sel) sel.modify(shift ? 'extend' : 'move', move[0], ctrl ? move[2] : move[1]);
    } else {
        const before = el.value;
        if (kind == 'number') number(el, move);
        else range(el, move);
        if (el.value != before) changed(el);
    }
    return null;
}

// The usable option `skip` on from the selected one in `dir` (the last usable one before the end
// when fewer are left), or the first or last usable one (`skip` 0), as Chromium counts: its list
// items (options and groups) one by one, a disabled or hidden option passed but counted.
function option(select, dir, skip) {
    const items = select.querySelectorAll('option, optgroup, hr');
    const n = items.length;
    let at = dir > 0 ? -1 : n;
    if (skip) {
        for (let i = 0; i < n; i++) if (items[i] === select.selectedOptions[0]) at = i;
    } else skip = 1;
    let found = null;
    for (at += dir; at >= 0 && at < n; at += dir) {
        skip--;
        const o = items[at];
        if (o.localName != 'option' || o.matches(':disabled') || getComputedStyle(o).display == 'none') continue;
        found = o;
        if (skip <= 0) break;
    }
    return found;
}

// The radio of `el`'s group (its name, its form, its tree) `dir` from it that can be used, round
// past the ends; null when there is none but `el`.
function radio(el, dir) {
    if (!el.name) return null;
    const all = el.getRootNode().querySelectorAll('input[type=radio]');
    const group = [];
    let n = 0;
    let at = 0;
    for (let i = 0; i < all.length; i++) {
        const r = all[i];
        if (r === el) at = n;
        if (
            r === el ||
            (r.name === el.name &&
                r.form === el.form &&
                !r.matches(':disabled') &&
                r.checkVisibility({ visibilityProperty: true }))
        )
            group[n++] = r;
    }
    const next = group[(at + dir + n) % n];
    return next === el ? null : next;
}

// A number field's step `dir`: from a value below its minimum only up to it, from one above its
// maximum only down to it, from none (0) to 0 held in the range, then `stepUp` or `stepDown`.
function number(el, dir) {
    const min = parseFloat(el.min);
    const max = parseFloat(el.max);
    const before = el.value;
    let v = el.valueAsNumber;
    if (isNaN(v)) {
        if (min > 0 || max < 0) return set(el, String(min > 0 ? min : max));
        set(el, '0');
        v = 0;
    }
    if (v < min || v > max) {
        if ((v < min) == dir > 0) set(el, String(v < min ? min : max));
        return;
    }
    try {
        if (dir > 0) el.stepUp();
        else el.stepDown();
    } catch {
        // step="any": the browser does not step it either.
        set(el, before);
    }
}

// A range's move: `[what, sign]` from MOVES (the browser's own value sanitizing then keeps it in
// the range and on a step).
function range(el, [what, sign, x]) {
    const min = isNaN(parseFloat(el.min)) ? 0 : parseFloat(el.min);
    const max = Math.max(min, isNaN(parseFloat(el.max)) ? 100 : parseFloat(el.max));
    const s = getComputedStyle(el);
    const vertical = s.writingMode.indexOf('vertical') == 0 || s.appearance == 'slider-vertical';
    const any = (el.getAttribute('step') || '').toLowerCase() == 'any';
    const step = any ? (max - min) / 100 : parseFloat(el.step) > 0 ? parseFloat(el.step) : 1;
    if (what == 'e') return set(el, String((sign > 0) != vertical ? max : min));
    const by = what == 'b' ? Math.max((max - min) / 10, step) : step;
    const flip = x && (vertical || rtl(el)) ? -1 : 1;
    set(el, String(el.valueAsNumber + flip * sign * by));
}

// Sets `el.value` through its prototype's setter, which the value trackers of React and the like
// (on the element itself) do not see, so they see the change the events report.
function set(el, v) {
    const win = el.ownerDocument.defaultView;
    const d = Object.getOwnPropertyDescriptor(win.HTMLInputElement.prototype, 'value');
    if (d && d.set) d.set.call(el, v);
    else el.value = v;
}

// Enter in `el`, a form's field (not a button): Chromium's implicit submission. The form's first
// submit button is clicked (a disabled one stops it for a text field; a checkbox or a radio goes
// on to the next); without one, a form whose only text field is `el` is submitted.
export function submit(el) {
    const form = el.form;
    if (!form) return;
    const trigger = BLOCKING.indexOf(' ' + el.type + ' ') >= 0;
    const all = el.ownerDocument.querySelectorAll('button, input');
    let fields = 0;
    for (let i = 0; i < all.length; i++) {
        const c = all[i];
        if (c.form !== form) continue;
        if (c.type == 'submit' || (c.localName == 'input' && c.type == 'image')) {
            if (!c.matches(':disabled')) return void c.click();
            if (trigger) return;
        } else if (c.localName == 'input' && BLOCKING.indexOf(' ' + c.type + ' ') >= 0) fields++;
    }
    if (trigger && fields == 1) form.requestSubmit();
}

// Whether the keys that scroll edit or move in `el` instead: a text field (number and date ones
// too), a textarea, an editable element, a select, a slider.
function typing(el) {
    const tag = el.localName;
    if (tag == 'textarea' || tag == 'select' || el.isContentEditable) return true;
    return tag == 'input' && ' checkbox radio button submit reset image file color '.indexOf(' ' + el.type + ' ') < 0;
}

// What Chromium scrolls by for a key (its keyboard scrolling on Linux): a line of 40 px for an
// arrow, 87.5 % of the view for a page (PageUp, PageDown, Space), the whole way for Home and End.
const LINE = 40;
const PAGE = 0.875;
const SCROLLS = {
    ArrowDown: [0, 1, 'line'],
    ArrowUp: [0, -1, 'line'],
    ArrowRight: [1, 1, 'line'],
    ArrowLeft: [1, -1, 'line'],
    PageDown: [0, 1, 'page'],
    PageUp: [0, -1, 'page'],
    ' ': [0, 1, 'page'],
    End: [0, 1, 'all'],
    Home: [0, -1, 'all'],
};

// A key that scrolls (Space with `back`: up a page), from `el` (the focused element): the first
// box around it that can still move that way, else the page, instantly (Chromium animates it; the
// position it comes to rest at is the same).
export function scroll(el, key, back) {
    const k = SCROLLS[key];
    if (!k) return null;
    const [axis, sign0, by] = k;
    const sign = key == ' ' && back ? -1 : sign0;
    const doc = el.ownerDocument;
    const root = doc.scrollingElement || doc.documentElement;
    const can = (e) => {
        const pos = axis ? e.scrollLeft : e.scrollTop;
        const max = axis ? e.scrollWidth - e.clientWidth : e.scrollHeight - e.clientHeight;
        return sign > 0 ? pos < max - 0.5 : pos > 0.5;
    };
    let box = root;
    for (let e = el; e && e !== root && e.localName != 'body'; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (scrollsOverflow(axis ? s.overflowX : s.overflowY) && can(e)) {
            box = e;
            break;
        }
    }
    const view = box === root ? (axis ? root.clientWidth : root.clientHeight) : axis ? box.clientWidth : box.clientHeight;
    const amount = by == 'line' ? LINE : by == 'page' ? Math.max(Math.floor(view * PAGE), 1) : axis ? box.scrollWidth : box.scrollHeight;
    const d = { left: axis ? sign * amount : 0, top: axis ? 0 : sign * amount, behavior: 'instant' };
    (box === root ? doc.defaultView : box).scrollBy(d);
    return null;
}

// Whether an `overflow` value scrolls.
const scrollsOverflow = (o) => o == 'auto' || o == 'scroll' || o == 'overlay';

// A multi-select list box's keys, as Chromium's (`ListBoxSelectType`): its active option (where
// the keys move from; the last selected one until they move it) and the anchor of a Shift range.
// An arrow, PageUp, PageDown, Home or End moves the active option and selects it alone; with
// Shift, the range from the anchor; with Control, only the active option moves, and Space then
// toggles it. `input` and `change` when the selection changed. Kept per element.
const LISTS = new WeakMap();

function listbox(el, key, shift, ctrl) {
    const all = el.options;
    const usable = (o) => o && !o.disabled && !(o.parentElement && o.parentElement.localName == 'optgroup' && o.parentElement.disabled) && getComputedStyle(o).display != 'none';
    const selected = () => {
        const out = [];
        for (let i = 0; i < all.length; i++) out[i] = all[i].selected;
        return out;
    };
    const sig = () => selected().join();
    const index = (o) => {
        for (let i = 0; i < all.length; i++) if (all[i] === o) return i;
        return -1;
    };
    let st = LISTS.get(el);
    if (!st || index(st.end) < 0) {
        // Where Chromium's keys start in a list box they have not moved in: the last option its
        // markup selected (a script's selection does not move it), else the last selected one.
        let start = null;
        for (let i = 0; i < all.length; i++) if (all[i].defaultSelected) start = all[i];
        st = { end: start || lastSelected(all), anchor: null, cached: null, apart: false };
    }
    const before = sig();
    if (key == ' ') {
        if (!st.apart) return;
        let o = st.end;
        if (!o) o = step(all, index(lastSelected(all)), 1, 1, usable);
        if (o) o.selected = !o.selected;
    } else {
        const rows = Math.max((el.size || 4) - 1, 1);
        const at = index(st.end);
        const moves = {
            ArrowDown: [1, 1],
            ArrowUp: [-1, 1],
            PageDown: [1, rows],
            PageUp: [-1, rows],
            Home: [1, 0],
            End: [-1, 0],
        };
        const m = moves[key];
        if (!m) return;
        const next = m[1] ? step(all, at < 0 && m[0] < 0 ? all.length : at, m[0], m[1], usable) : step(all, m[0] > 0 ? -1 : all.length, m[0], 1, usable);
        if (!next) return;
        const from = st.end;
        st.end = next;
        const pick = shift || !ctrl;
        const alone = !shift && pick;
        if (!st.anchor || alone) {
            if (alone) for (let i = 0; i < all.length; i++) all[i].selected = false;
            // A Shift range starts where the keys were.
            st.anchor = alone || !from ? next : from;
            st.cached = selected();
        }
        st.apart = !shift && ctrl;
        if (pick) {
            const a = index(st.anchor);
            const b = index(next);
            const lo = Math.min(a, b);
            const hi = Math.max(a, b);
            for (let i = 0; i < all.length; i++) {
                if (i >= lo && i <= hi) all[i].selected = usable(all[i]) ? true : all[i].selected;
                else if (!alone) all[i].selected = st.cached[i];
            }
        }
    }
    st.sig = sig();
    LISTS.set(el, st);
    if (st.sig != before) changed(el);
}

// The last selected option of `all`.
function lastSelected(all) {
    let last = null;
    for (let i = 0; i < all.length; i++) if (all[i].selected) last = all[i];
    return last;
}

// The usable option `count` options on from index `at` in `dir` (the furthest usable one when
// fewer are left); null when there is none.
function step(all, at, dir, count, usable) {
    let found = null;
    for (let i = at + dir; i >= 0 && i < all.length; i += dir) {
        // Chromium counts the options it passes over too (a disabled one, a hidden one).
        count--;
        if (!usable(all[i])) continue;
        found = all[i];
        if (count <= 0) break;
    }
    return found;
}
