// @ts-check
// What a key does that synthetic key events do not, where it needs no text editing (it was Rust
// in the code every page loads), loaded on the first Tab or Escape: the order Tab moves in, and
// closing the top modal dialog or open popover on Escape. The client does the rest (which of the
// elements can be used, the focus and its events). Arrays are filled by index and sorted by hand:
// pages replace the Array methods.

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
function order(doc) {    const list = doc.querySelectorAll(REACHABLE);
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
