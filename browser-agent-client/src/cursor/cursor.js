// @ts-check
// The visible agent cursor (see mod.rs for what it does and when it shows). Loaded by the wasm
// client on the first action where the cursor shows, so pages without it never pay for it.
// Its placeholders are filled from the Rust constants by scripts/build-bootstrap.mjs.

const PINK = '#DD2590';
const STORE_KEY = '__browserAgentCursor';
const FADE_AFTER_MS = 1500;
const MARGIN = 10; // the tip is kept this far inside the viewport (px)

let cursor = null; // {root, arrow, x, y, shown, fade}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const px = (v) => Math.round(v) + 'px';
const translate = (x, y) => 'translate(' + px(x) + ',' + px(y) + ')';

// The name tag: the config's `cursorName`, or `cursor` when it is a name; `Agent` otherwise.
function name() {
    /** @type {Partial<AgentConfig>} */
    const cfg = /** @type {Partial<BrowserAgent>} */ (window[__GLOBAL__] || {}).__F_CFG__ || {};
    // The first that is a non-blank string (`find` does not narrow the type by itself).
    const n = /** @type {string | undefined} */ ([cfg.__F_CFG_CURSOR_NAME__, cfg.__F_CFG_CURSOR__].find((v) => typeof v == 'string' && v.trim()));
    return (n || 'Agent').slice(0, 40);
}

function stored() {
    try {
        const [x, y] = (sessionStorage.getItem(STORE_KEY) || '').split(',').map(Number);
        if (isFinite(x) && isFinite(y) && sessionStorage.getItem(STORE_KEY)) return [x, y];
    } catch (blocked) {}
    return null;
}

function store(x, y) {
    try {
        sessionStorage.setItem(STORE_KEY, Math.round(Math.max(x, 0)) + ',' + Math.round(Math.max(y, 0)));
    } catch (blocked) {}
}

function create(x, y) {
    const root = document.createElement('div');
    root.id = '__browser-agent-cursor';
    root.setAttribute(__UI_ATTR__, '');
    root.setAttribute('aria-hidden', 'true');
    root.setAttribute(
        'style',
        'position:fixed;left:0;top:0;width:0;height:0;margin:0;padding:0;border:0;z-index:2147483647;' +
            'pointer-events:none;opacity:0;will-change:transform;contain:layout style;transition:opacity .3s;transform:' +
            translate(x, y)
    );
    const arrow = document.createElement('div');
    arrow.setAttribute('style', 'transform-origin:3px 2px;transition:transform 90ms cubic-bezier(.4,0,1,1)');
    arrow.innerHTML =
        '<svg width="26" height="26" viewBox="0 0 26 26" style="display:block;filter:drop-shadow(0 1px 2px rgba(0,0,0,.35))">' +
        '<path d="M3 2 L22 10.5 L13.5 13.2 L9.8 22 Z" fill="' + PINK + '" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>';
    const tag = document.createElement('span');
    tag.setAttribute(
        'style',
        'position:absolute;left:20px;top:22px;background:' + PINK + ';color:#fff;font:600 12px/1.3 system-ui,sans-serif;' +
            'padding:3px 8px;border-radius:9px;white-space:nowrap;box-shadow:0 1px 3px rgba(0,0,0,.3)'
    );
    tag.textContent = name(); // text, never markup: the name comes from the config
    arrow.appendChild(tag);
    root.appendChild(arrow);
    document.documentElement.appendChild(root);
    return { root, arrow, x, y, shown: false, fade: 0 };
}

// A point 20 px outside a random viewport edge, level with (x, y).
function edgeStart(x, y) {
    const side = Math.floor(Math.random() * 4);
    return [
        [x, -46],
        [innerWidth + 20, y],
        [x, innerHeight + 20],
        [-46, y],
    ][side];
}

function cancelFade() {
    if (cursor && cursor.fade) clearTimeout(cursor.fade);
    if (cursor) cursor.fade = 0;
}

// Glides to (x, y) in viewport coordinates, entering (or coming back) first when hidden; resolves
// when it arrives.
export function moveTo(x, y) {
    x = Math.max(MARGIN, Math.min(x, innerWidth - MARGIN));
    y = Math.max(MARGIN, Math.min(y, innerHeight - MARGIN));
    if (!cursor || !cursor.root.isConnected) {
        const [sx, sy] = stored() || edgeStart(x, y);
        cursor = create(sx, sy);
    }
    cancelFade();
    const { root } = cursor;
    const [fromX, fromY] = [cursor.x, cursor.y];
    Object.assign(cursor, { x, y, shown: true });
    const ms = Math.min(Math.max(220 + 0.55 * Math.hypot(x - fromX, y - fromY), 280), 800) | 0;
    root.style.transition = 'none';
    root.style.transform = translate(fromX, fromY);
    void root.offsetWidth; // flush, so the glide starts from there
    root.style.transition = 'transform ' + ms + 'ms cubic-bezier(.65,0,.35,1),opacity .2s';
    root.style.opacity = '1';
    root.style.transform = translate(x, y);
    store(x, y);
    return sleep(ms);
}

// Presses: the arrow shrinks.
export function press() {
    if (!cursor || !cursor.shown) return;
    cursor.arrow.style.transform = 'scale(.88)';
    return sleep(90);
}

// Releases, with a ripple where it clicked.
export function release() {
    if (!cursor || !cursor.shown) return;
    const { arrow, x, y } = cursor;
    arrow.style.transition = 'transform 160ms ease-out';
    arrow.style.transform = 'scale(1)';
    const ripple = document.createElement('div');
    ripple.setAttribute(__UI_ATTR__, '');
    ripple.id = '__browser-agent-ripple';
    ripple.setAttribute(
        'style',
        'position:fixed;left:' + px(x - 36) + ';top:' + px(y - 36) + ';width:72px;height:72px;border-radius:50%;' +
            'box-sizing:border-box;border:2px solid ' + PINK + ';background:rgba(221,37,144,.15);pointer-events:none;' +
            'z-index:2147483646;transform:scale(0);opacity:.9;transition:transform .45s ease-out,opacity .45s ease-out'
    );
    document.documentElement.appendChild(ripple);
    void ripple.offsetWidth;
    ripple.style.transform = 'scale(1)';
    ripple.style.opacity = '0';
    setTimeout(() => ripple.remove(), 500);
    return sleep(40);
}

// A batch starts: no fade while it runs.
export function batchStart() {
    cancelFade();
}

// A batch ended: fade out in 1.5 s (the position is kept for the next entrance).
export function batchEnd() {
    if (!cursor || !cursor.shown) return;
    cancelFade();
    cursor.fade = setTimeout(() => {
        cursor.fade = 0;
        cursor.shown = false;
        cursor.root.style.opacity = '0';
    }, FADE_AFTER_MS);
}
