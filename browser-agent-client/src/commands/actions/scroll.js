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
