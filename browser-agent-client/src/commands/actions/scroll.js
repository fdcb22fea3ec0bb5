// @ts-check
// The `scroll` step by a direction, loaded on the first such scroll (it was Rust in the code every
// page loads): the page, or the container that scrolls the target, by an amount of px (80 % of
// its view by default), and where it is now. Its placeholders are filled from the Rust constants
// by scripts/build-bootstrap.mjs.

// The built-ins as they were before the page's scripts ran (the bootstrap keeps them): the
// page's `setTimeout` is the bootstrap's counting wrapper, which an action's settle wait reads.
const kept = /** @type {Partial<BrowserAgent>} */ (window[__GLOBAL__] || {}).__F_PRISTINE__ || {};
const timeout = kept['setTimeout'] || setTimeout;
const apply = kept['Reflect.apply'] || Reflect.apply;

// `v` rounded half away from zero, as the client rounds.
const round = (v) => (v < 0 ? -Math.round(-v) : Math.round(v));

// A number of px as the client writes it: rounded, `-` before a negative one.
const num = (v) => (v < 0 ? '-' : '') + round(Math.abs(v));

// Whether an `overflow` value scrolls.
const scrolls = (o) => o == 'auto' || o == 'scroll' || o == 'overlay';

// The element that scrolls `el` (itself when it scrolls), or null for the page.
function scroller(el) {
    for (let e = el; e && e.localName != 'body' && e.localName != 'html'; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (
            (scrolls(s.overflowY) && e.scrollHeight > e.clientHeight) ||
            (scrolls(s.overflowX) && e.scrollWidth > e.clientWidth)
        )
            return e;
    }
    return null;
}

// Scrolls by `direction` ("down", "up", "right" or "left") and `amount` (px; undefined for the
// default) the container that scrolls `el`, or the page when `el` is null or nothing scrolls it;
// the answer: `scrolled the page down 350px (now at y=350 of 1234)`, and when it did not move,
// why.
export async function by(el, direction, amount) {
    const box = el && scroller(el);
    const dy = direction == 'down' ? 1 : direction == 'up' ? -1 : 0;
    const dx = direction == 'right' ? 1 : direction == 'left' ? -1 : 0;
    if (typeof amount != 'number') amount = (dy ? (box ? box.clientHeight : innerHeight) : box ? box.clientWidth : innerWidth) * 0.8;
    amount = round(amount);
    const root = document.documentElement;
    const at = box
        ? () => [box.scrollTop, box.scrollHeight - box.clientHeight, box.scrollLeft]
        : () => [scrollY, root.scrollHeight - innerHeight, scrollX];
    const before = at();
    (box || window).scrollBy({ left: dx * amount, top: dy * amount, behavior: 'instant' });
    await new Promise((done) => apply(timeout, window, [done, 20]));
    const after = at();
    let out = 'scrolled ' + (el ? 'the container ' : 'the page ') + direction + ' ' + num(amount) + 'px';
    if (!dy) return out + ' (now at x=' + num(after[2]) + ')';
    out += ' (now at y=' + num(after[0]) + ' of ' + num(Math.max(after[1], 0)) + ')';
    if (Math.abs(after[0] - before[0]) < 1) out += '; it did not move (already at the ' + (dy > 0 ? 'bottom)' : 'top)');
    return out;
}

// What scrolls `el` and where it is: the container (itself when it scrolls) or the page, its
// position, its furthest, and what the answer calls it.
function place(el) {
    const box = el && scroller(el);
    const root = document.scrollingElement || document.documentElement;
    const s = box || root;
    return {
        box,
        at: () => [s.scrollLeft, s.scrollTop],
        max: [Math.max(s.scrollWidth - s.clientWidth, 0), Math.max(s.scrollHeight - s.clientHeight, 0)],
        name: box ? 'the container' : 'the page',
    };
}

// Scrolls the container that scrolls `el` (itself when it scrolls), or the page when `el` is null
// or nothing scrolls it, to `to` ("top", "bottom", "left" or "right") or to `x`/`y` (px from its
// start; either may be missing); the answer: `scrolled the container to the bottom (now at y=900
// of 900)`, and when it could not go as far, why.
export async function to(el, to, x, y) {
    const p = place(el);
    // A target that neither scrolls nor sits in a container that does: the page moves it.
    if (el && !p.box) p.name = 'the page (nothing inside it scrolls the target)';
    const [left, top] = p.at();
    const want = {
        left: to == 'left' ? 0 : to == 'right' ? p.max[0] : typeof x == 'number' ? x : left,
        top: to == 'top' ? 0 : to == 'bottom' ? p.max[1] : typeof y == 'number' ? y : top,
        behavior: 'instant',
    };
    (p.box || window).scrollTo(want);
    await new Promise((done) => apply(timeout, window, [done, 20]));
    const now = p.at();
    let out = 'scrolled ' + p.name + ' to ' + (to ? 'the ' + to : (typeof x == 'number' ? 'x=' + num(x) : '') + (typeof x == 'number' && typeof y == 'number' ? ', ' : '') + (typeof y == 'number' ? 'y=' + num(y) : ''));
    out += ' (now at x=' + num(now[0]) + ' of ' + num(p.max[0]) + ', y=' + num(now[1]) + ' of ' + num(p.max[1]) + ')';
    const short = (typeof x == 'number' && Math.abs(now[0] - x) >= 1) || (typeof y == 'number' && Math.abs(now[1] - y) >= 1);
    if (short) out += '; it goes no further';
    return out;
}
