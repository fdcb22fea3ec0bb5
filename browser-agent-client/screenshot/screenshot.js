// @ts-check
// In-page screenshot of the live page, loaded on the first `screenshot` step (a content-hashed,
// minified asset; the always-loaded client stays small).
//
// One synchronous, read-only walk of the page (a consistent snapshot: no await between reads, a
// single style recalc) writes an XHTML copy of what is visible: each element's computed style
// reduced to what differs from the browser's own defaults (read once in a hidden about:blank
// iframe), deduplicated into classes; pseudo-elements as spans; form state as attributes;
// images, canvases, videos and same-origin iframes as data: images; fixed elements placed where
// they are; scrolled containers shifted; offscreen subtrees cut to sized boxes. That copy is
// then painted by the browser's own renderer, by one of two paths:
//   - "html-in-canvas": `drawElementImage` (Chrome 157+, or 148–156 behind the CanvasDrawElement
//     blink feature) draws the copy mounted for one frame in a transparent layoutsubtree canvas
//     (the page's web fonts apply as they are);
//   - "foreignobject": the copy inside an SVG <foreignObject> (web fonts inlined as data: URLs,
//     since an SVG image loads nothing external), decoded as an image, drawn on a detached canvas.
// The live page never changes: nothing is written to its elements; the only transient nodes (the
// defaults iframe, the html-in-canvas canvas) carry `data-ba-internal` and leave in the task that
// added them. Every request goes through `opts.fetch` (the page's unpatched fetch), so the page's
// network log never records the capture's own traffic. Same state in → same bytes out: classes
// are numbered in walk order, resources in first-use order.

const XHTML = 'http://www.w3.org/1999/xhtml';
const SVG = 'http://www.w3.org/2000/svg';
const MAX_SIDE = 16384; // Chromium's canvas limit per side...
const MAX_AREA = 268435456; // ...and in area; past them toBlob fails with "cannot be decoded".
const MARGIN = 200; // culling keeps what is this close to the captured region
const CHECK_EVERY = 32; // elements between two looks at the clock

// Inherited properties: emitted where they differ from the parent's value (or where the browser's
// stylesheet sets them for the tag, like `b` or `h1`). A curated list of what paints: reading all
// ~480 properties costs three times as much and, measured, changes no pixel.
const INHERITED = [
  'color', 'font-family', 'font-size', 'font-style', 'font-weight', 'font-stretch',
  'font-variant-caps', 'font-variant-ligatures', 'font-variant-numeric', 'font-variant-east-asian',
  'font-variant-position', 'font-feature-settings', 'font-variation-settings', 'font-kerning',
  'font-optical-sizing', 'font-synthesis-weight', 'font-synthesis-style', 'font-palette',
  'line-height', 'letter-spacing', 'word-spacing', 'text-align', 'text-align-last', 'text-indent',
  'text-transform', 'text-shadow', 'white-space-collapse', 'text-wrap-mode', 'text-wrap-style',
  'word-break', 'overflow-wrap', 'line-break', 'hyphens', 'tab-size', 'direction', 'writing-mode',
  'text-orientation', 'text-rendering', '-webkit-font-smoothing', 'visibility', 'list-style-type',
  'list-style-position', 'list-style-image', 'border-collapse', 'border-spacing', 'caption-side',
  'empty-cells', 'quotes', 'text-decoration-skip-ink', 'text-underline-offset',
  'text-underline-position', 'text-emphasis-style', 'text-emphasis-color', 'text-emphasis-position',
  '-webkit-text-fill-color', '-webkit-text-stroke-width', '-webkit-text-stroke-color',
  'caret-color', 'accent-color', 'color-scheme', 'paint-order', 'image-rendering', 'fill',
  'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-dasharray',
  'stroke-dashoffset', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'clip-rule',
  'text-anchor', 'dominant-baseline', 'ruby-position', 'print-color-adjust', 'forced-color-adjust',
  '-webkit-text-security', 'pointer-events',
];

// Non-inherited properties: emitted where they differ from the tag's default. Width and height are
// decided apart (see `sizes`); animations and transitions never (computed values already hold the
// current frame, and an animation would replay from 0% in the copy).
const OWN = [
  'display', 'position', 'top', 'right', 'bottom', 'left', 'float', 'clear', 'z-index',
  'box-sizing', 'min-width', 'min-height', 'max-width', 'max-height', 'aspect-ratio',
  'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-top-left-radius', 'border-top-right-radius', 'border-bottom-right-radius',
  'border-bottom-left-radius', 'border-image-source', 'border-image-slice', 'border-image-width',
  'border-image-outset', 'border-image-repeat',
  'outline-width', 'outline-style', 'outline-color', 'outline-offset',
  'background-color', 'background-image', 'background-size', 'background-position-x',
  'background-position-y', 'background-repeat', 'background-clip', 'background-origin',
  'background-blend-mode', 'box-shadow', 'opacity', 'mix-blend-mode', 'isolation', 'filter',
  'backdrop-filter', 'transform', 'transform-origin', 'transform-style', 'translate', 'rotate',
  'scale', 'perspective', 'perspective-origin', 'backface-visibility', 'clip-path', 'clip',
  'mask-image', 'mask-size', 'mask-position', 'mask-repeat', 'mask-mode', 'mask-composite',
  '-webkit-mask-image', '-webkit-mask-size', '-webkit-mask-position', '-webkit-mask-repeat',
  'overflow-x', 'overflow-y', 'overflow-clip-margin', 'text-overflow', 'vertical-align',
  'text-decoration-line', 'text-decoration-color', 'text-decoration-style',
  'text-decoration-thickness', 'unicode-bidi',
  'flex-direction', 'flex-wrap', 'flex-grow', 'flex-shrink', 'flex-basis', 'order',
  'justify-content', 'align-items', 'align-self', 'align-content', 'justify-items',
  'justify-self', 'row-gap', 'column-gap', 'grid-template-columns', 'grid-template-rows',
  'grid-template-areas', 'grid-auto-flow', 'grid-auto-columns', 'grid-auto-rows',
  'grid-column-start', 'grid-column-end', 'grid-row-start', 'grid-row-end',
  'table-layout', 'object-fit', 'object-position', 'column-count', 'column-width',
  'column-rule-width', 'column-rule-style', 'column-rule-color', 'column-fill', 'column-span',
  'contain', 'appearance', 'resize', '-webkit-line-clamp', '-webkit-box-orient',
  '-webkit-box-align', '-webkit-box-pack', '-webkit-box-direction', '-webkit-box-flex',
  'shape-outside', 'content-visibility', 'x', 'y', 'cx', 'cy', 'r', 'rx', 'ry', 'stop-color',
  'stop-opacity', 'flood-color', 'flood-opacity', 'lighting-color', 'mask-type', 'vector-effect',
  'text-box-trim', 'text-box-edge', 'field-sizing', 'zoom',
];
const N_INH = INHERITED.length;
const PROPS = INHERITED.concat(OWN);
// Properties whose default is `currentcolor`: equal to the element's own colour, they say nothing.
const CURRENT = new Set([
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'outline-color', 'text-decoration-color', 'column-rule-color', 'caret-color',
  '-webkit-text-fill-color', '-webkit-text-stroke-color', 'text-emphasis-color',
]);

const SKIP = new Set(['script', 'style', 'link', 'meta', 'template', 'noscript', 'head', 'title', 'base', 'slot-fallback']);
const VOID = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'input', 'source', 'track', 'wbr']);
// Attributes that change rendering (everything else is dropped: classes, ids, handlers, data-*).
const KEEP = new Set([
  'type', 'checked', 'selected', 'placeholder', 'disabled', 'readonly', 'multiple', 'size', 'min',
  'max', 'step', 'low', 'high', 'optimum', 'rows', 'cols', 'colspan', 'rowspan', 'span', 'start',
  'reversed', 'open', 'dir', 'lang', 'label', 'alt', 'width', 'height', 'wrap', 'headers', 'value',
]);
// Boxes that can be replaced by an empty box of their size without changing layout around them.
// Not table rows: an auto-layout table's columns depend on every row's cells.
const HUSKABLE = new Set(['block', 'flow-root', 'flex', 'grid', 'list-item', 'inline-block', 'inline-flex', 'inline-grid', 'table']);
// What the browser paints from outside the element's own style; sized exactly.
const REPLACED = new Set(['img', 'input', 'select', 'textarea', 'canvas', 'video', 'iframe', 'svg', 'object', 'embed', 'progress', 'meter']);
const TRANSPARENT = 'rgba(0, 0, 0, 0)';
const CONTROLS = new Set(['input', 'button', 'select', 'textarea', 'meter', 'progress', 'option']);
const VARIANT = ['type', 'disabled', 'readonly', 'multiple', 'size'];

// Cached across captures: UA defaults per tag (the browser's, stable for the page's life), font
// and image data URLs per URL.
const defaults = new Map();
const dataUrls = new Map();

// eslint-disable-next-line no-control-regex -- the control characters XML 1.0 forbids are dropped
const esc = (s) => s.replace(/[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) =>
  c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '');
const px = (v) => parseFloat(v) || 0;
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/**
 * Captures the viewport, the full page or one element as a PNG or JPEG Blob.
 * Rejects with an Error whose message is a sentence an agent can act on.
 */
export async function capture(opts = {}) {
  try {
    return await captureOnce(opts);
  } catch (e) {
    // Our own refusals are sentences already; anything else (a page the walk did not expect) says
    // what failed, never just "TypeError: …".
    // eslint-disable-next-line preserve-caught-error -- the message is the sentence the agent reads
    if (e instanceof Refusal) throw new Error(e.message);
    // eslint-disable-next-line preserve-caught-error -- (same)
    throw new Error(`The page could not be captured: ${String((e && e.message) || e).replace(/\.$/, '')}.`);
  }
}

/** An error whose message is meant for the agent as it is. */
class Refusal extends Error {}

async function captureOnce(opts) {
  const t0 = performance.now();
  const o = options(opts);
  const win = window;
  const doc = document;
  if (!doc.documentElement) throw new Refusal('The page has no document element to capture.');
  if (doc.fonts && doc.fonts.status !== 'loaded') {
    // Text drawn before the page's fonts arrive would be in a fallback font; wait, but not long.
    await Promise.race([doc.fonts.ready, new Promise((r) => setTimeout(r, 500))]);
  }
  const hic = o.method !== 'foreignobject' && typeof CanvasRenderingContext2D !== 'undefined' &&
    typeof CanvasRenderingContext2D.prototype.drawElementImage === 'function';
  if (o.method === 'html-in-canvas' && !hic) {
    throw new Refusal('This browser has no HTML-in-Canvas (drawElementImage): use method "auto" or "foreignobject", or Chromium 157+ (148–156 with --enable-blink-features=CanvasDrawElement).');
  }
  const region = regionOf(o, win, doc);
  if (!(region.w >= 1 && region.h >= 1)) throw new Refusal('The area to capture is empty (0 × 0 CSS pixels): is the element displayed?');

  // Output size: scale, then maxWidth, then the canvas limits.
  const warnings = [];
  let s = o.scale;
  if (region.w * s > o.maxWidth) s = o.maxWidth / region.w;
  const limit = Math.min(MAX_SIDE / (region.w * s), MAX_SIDE / (region.h * s), Math.sqrt(MAX_AREA / (region.w * s * region.h * s)));
  if (limit < 1) {
    s *= limit;
    warnings.push(`scaled down to fit ${MAX_SIDE} px`);
  }
  const outW = Math.max(1, Math.floor(region.w * s));
  const outH = Math.max(1, Math.floor(region.h * s));

  const env = { o, warnings, deadline: t0 + o.budgetMs, budgetHit: 0, counts: { nocors: 0, tainted: 0, xframe: 0, fontsX: 0 }, hic };
  const model = walkDocument(win, region, env, true);
  let canvas;
  let method = hic ? 'html-in-canvas' : 'foreignobject';
  if (hic) {
    try {
      canvas = await drawHic(model, region, s, outW, outH);
    } catch (e) {
      if (o.method === 'html-in-canvas') throw new Refusal(`HTML-in-Canvas could not draw the page: ${String((e && e.message) || e).replace(/\.$/, '')}.`);
      warnings.push(`html-in-canvas failed (${e && e.message}); drawn with foreignObject instead`);
      method = 'foreignobject';
      env.hic = false;
    }
  }
  if (!canvas) {
      canvas = await drawForeignObject(model, region, outW, outH);
  }
  const { nocors, tainted, xframe, fontsX } = env.counts;
  if (nocors) warnings.push(`${plural(nocors, 'cross-origin image', 'cross-origin images')} as placeholders`);
  if (tainted) warnings.push(`${plural(tainted, 'canvas or video', 'canvases or videos')} with cross-origin content as placeholders`);
  if (xframe) warnings.push(`${plural(xframe, 'cross-origin iframe', 'cross-origin iframes')} as placeholders`);
  if (fontsX) warnings.push(`${plural(fontsX, 'font stylesheet', 'font stylesheets')} from another origin not embedded`);
  if (env.budgetHit) warnings.push(`time budget reached: ${plural(env.budgetHit, 'element', 'elements')} drawn as blank boxes`);
  const type = o.format === 'jpeg' ? 'image/jpeg' : 'image/png';
  const blob = await encode(canvas, type, o.format === 'jpeg' ? o.quality : undefined).catch(() => null);
  if (!blob) throw new Refusal(`The browser could not encode the ${outW} × ${outH} capture as ${o.format}.`);
  return { blob, width: outW, height: outH, method, warnings, ms: Math.round(performance.now() - t0) };
}

function options(opts) {
  const o = {
    element: opts.element || null,
    padding: opts.padding == null ? 0 : +opts.padding,
    fullPage: !!opts.fullPage,
    format: opts.format == null ? 'png' : String(opts.format).toLowerCase(),
    quality: opts.quality == null ? 0.8 : +opts.quality,
    maxWidth: opts.maxWidth == null ? 1568 : +opts.maxWidth,
    scale: opts.scale == null ? 1 : +opts.scale,
    budgetMs: opts.budgetMs == null ? 1000 : +opts.budgetMs,
    // Our own overlay (the agent cursor) is never drawn.
    skip: typeof opts.skip === 'function' ? opts.skip : (el) => el.hasAttribute(__UI_ATTR__),
    fetch: typeof opts.fetch === 'function' ? opts.fetch : null,
    method: opts.method == null ? 'auto' : String(opts.method),
  };
  if (o.format === 'jpg') o.format = 'jpeg';
  if (o.format !== 'png' && o.format !== 'jpeg') throw new Refusal(`Unknown format "${opts.format}": use "png" or "jpeg".`);
  if (!(o.quality >= 0 && o.quality <= 1)) throw new Refusal(`quality must be between 0 and 1, got ${opts.quality}.`);
  if (!(o.maxWidth >= 1)) throw new Refusal(`maxWidth must be at least 1 pixel, got ${opts.maxWidth}.`);
  if (!(o.scale > 0 && o.scale <= 8)) throw new Refusal(`scale must be above 0 and at most 8, got ${opts.scale}.`);
  if (!(o.padding >= 0)) throw new Refusal(`padding must be 0 or more CSS pixels, got ${opts.padding}.`);
  if (!(o.budgetMs >= 0)) throw new Refusal(`budgetMs must be 0 or more, got ${opts.budgetMs}.`);
  if (!['auto', 'html-in-canvas', 'foreignobject'].includes(o.method)) throw new Refusal(`Unknown method "${opts.method}": use "auto", "html-in-canvas" or "foreignobject".`);
  if (o.element && !(o.element instanceof Element)) throw new Refusal('element must be an Element of the page.');
  if (o.element && !o.element.isConnected) throw new Refusal('The element to capture is no longer in the page.');
  return o;
}

/**
 * A captured rectangle in document px (`x`, `y`, `w`, `h`), with the scroll position (`sx`,
 * `sy`), the layout width and the document's size it was taken at.
 * @typedef {{x: number, y: number, w: number, h: number, sx?: number, sy?: number, layoutW?: number, docW?: number, docH?: number}} Region
 */

// The captured rectangle in document coordinates, and the layout the copy is laid out in.
/** @returns {Region} */
function regionOf(o, win, doc) {
  const root = doc.documentElement;
  const sx = win.scrollX;
  const sy = win.scrollY;
  const layoutW = root.clientWidth || win.innerWidth;
  const docW = Math.max(root.scrollWidth, win.innerWidth);
  const docH = Math.max(root.scrollHeight, doc.body ? doc.body.scrollHeight : 0, win.innerHeight);
  /** @type {Region} */
  let r;
  if (o.element) {
    const b = o.element.getBoundingClientRect();
    const p = o.padding;
    // Whole CSS pixels that contain the box: no edge of it is cut, nothing is resampled.
    const x = Math.max(0, Math.floor(b.left + sx - p));
    const y = Math.max(0, Math.floor(b.top + sy - p));
    r = { x, y, w: Math.min(docW, Math.ceil(b.right + sx + p)) - x, h: Math.min(docH, Math.ceil(b.bottom + sy + p)) - y };
  } else if (o.fullPage) {
    r = { x: 0, y: 0, w: docW, h: docH };
  } else {
    r = { x: sx, y: sy, w: win.innerWidth, h: win.innerHeight };
  }
  r.sx = sx;
  r.sy = sy;
  r.layoutW = layoutW;
  r.docH = Math.max(docH, r.y + r.h);
  r.docW = Math.max(docW, r.x + r.w);
  return r;
}

// ---- UA defaults ---------------------------------------------------------------------------

// The browser's defaults for an element of `tag` (namespace `ns`), read in a hidden standards-mode
// about:blank iframe where no page CSS reaches. Two copies, under 16 px and 32 px text: own
// properties that differ between them depend on the font size (`p { margin: 1em }`) and are
// always written; inherited ones the UA sets for the tag (`b`, `h1`, `code`) likewise.
function defaultsOf(env, ns, tag, el) {
  // Form controls' defaults depend on their type and state (a disabled input's UA border differs):
  // read them on a control of the same kind, or their colours would be written as author styles,
  // which turns off the native look.
  let variant = '';
  const set = [];
  if (el && CONTROLS.has(tag)) {
    for (const a of VARIANT) {
      if (el.hasAttribute(a)) {
        set.push([a, el.getAttribute(a)]);
        variant += ` ${a}="${el.getAttribute(a)}"`;
      }
    }
  }
  const id = (ns === SVG ? 'svg:' + tag : tag) + variant;
  let d = defaults.get(id);
  if (d) return d;
  const sb = sandbox(env);
  const make = () => {
    if (ns === SVG) {
      const svg = sb.doc.createElementNS(SVG, 'svg');
      const el = tag === 'svg' ? svg : svg.appendChild(sb.doc.createElementNS(SVG, tag));
      return [svg, el];
    }
    const el = sb.doc.createElement(tag);
    for (const [a, v] of set) el.setAttribute(a, v);
    return [el, el];
  };
  const [a, ea] = make();
  const [b, eb] = make();
  sb.a.appendChild(a);
  sb.b.appendChild(b);
  const ca = sb.win.getComputedStyle(ea);
  const cb = sb.win.getComputedStyle(eb);
  const pa = sb.win.getComputedStyle(sb.a);
  const vals = new Array(PROPS.length);
  const always = new Array(PROPS.length);
  for (let i = 0; i < PROPS.length; i++) {
    const p = PROPS[i];
    const v = ca.getPropertyValue(p);
    vals[i] = v;
    always[i] = i < N_INH ? v !== pa.getPropertyValue(p) : v !== cb.getPropertyValue(p);
  }
  const color = ca.getPropertyValue('color');
  let placeholder = '';
  if (tag === 'input' || tag === 'textarea') placeholder = sb.win.getComputedStyle(ea, '::placeholder').getPropertyValue('color');
  a.remove();
  b.remove();
  d = { vals, always, color, placeholder };
  defaults.set(id, d);
  return d;
}

// Opened on first need in a walk, removed when the walk ends (same task: no frame sees it).
function sandbox(env) {
  if (env.sb) return env.sb;
  const f = document.createElement('iframe');
  f.setAttribute('data-ba-internal', '');
  f.setAttribute('aria-hidden', 'true');
  f.tabIndex = -1;
  f.style.cssText = 'position:fixed!important;left:-10000px!important;top:0!important;width:10px!important;height:10px!important;border:0!important;visibility:hidden!important;pointer-events:none!important';
  document.documentElement.appendChild(f);
  const doc = f.contentDocument;
  doc.open();
  doc.write('<!DOCTYPE html><html><head></head><body><div></div><div style="font-size:32px"></div></body></html>');
  doc.close();
  const [a, b] = doc.body.children;
  env.sb = { f, doc, win: f.contentWindow, a, b };
  return env.sb;
}

// ---- the walk ----------------------------------------------------------------------------

// Walks one document (the page, or a same-origin iframe's) into a model: markup parts, classes,
// resources to inline, fonts used. Synchronous from start to end.
function walkDocument(win, region, env, top, depth = 0) {
  const m = {
    win, region, env, top, depth,
    parts: [], // strings, or {res: n} / {frame: model} placeholders filled after the walk
    keys: new Map(), // style key → class index
    rules: [],
    res: [], // resource URLs in first-use order
    resIndex: new Map(),
    families: new Set(),
    chars: new Set(),
    fixed: [], // parts of hoisted position:fixed elements
    rootBg: null,
    count: 0,
  };
  try {
    const root = win.document.documentElement;
    const rcs = win.getComputedStyle(root);
    const body = win.document.body;
    // The root's (else the body's) background paints the whole canvas, not just its box.
    let bgFrom = root;
    let bg = rcs;
    if (rcs.backgroundColor === TRANSPARENT && rcs.backgroundImage === 'none' && body) {
      bgFrom = body;
      bg = win.getComputedStyle(body);
    }
    m.rootBg = { el: bgFrom, color: bg.backgroundColor, image: bg.backgroundImage === 'none' ? '' : inlineUrls(m, bg.backgroundImage) };
    element(m, root, null, m.parts, false);
  } finally {
    if (top && env.sb) {
      env.sb.f.remove();
      env.sb = null;
    }
  }
  return m;
}

function classOf(m, key) {
  let n = m.keys.get(key);
  if (n === undefined) {
    n = m.keys.size;
    m.keys.set(key, n);
    m.rules.push(key);
  }
  return 'c' + n;
}

function resource(m, url) {
  let n = m.resIndex.get(url);
  if (n === undefined) {
    n = m.res.length;
    m.res.push(url);
    m.resIndex.set(url, n);
  }
  return { res: n };
}

// The style key of an element (or pseudo-element): the declarations that differ from what the
// copy would get anyway, plus `extra` ones (positions, sizes) decided by the caller.
function styleKey(m, cs, vals, parentVals, d, extra, skipBg) {
  let key = '';
  const color = vals[0];
  for (let i = 0; i < PROPS.length; i++) {
    const v = vals[i];
    if (!v) continue;
    const p = PROPS[i];
    // `currentcolor` resolves to the colour: written out, it would stop following the colour
    // (a ::marker's colour, a child's), so it is left to resolve again in the copy.
    if (CURRENT.has(p) && v === color && d.vals[i] === d.color) continue;
    if (i < N_INH) {
      if (parentVals && v === parentVals[i] && !d.always[i]) continue;
    } else {
      if (v === d.vals[i] && !d.always[i]) continue;
      if (skipBg && p.startsWith('background')) continue;
    }
    key += p + ':' + v + ';';
  }
  return key + extra;
}

// Reading computed values is almost all of a capture's cost, so each element reads only the
// properties that can matter for it: SVG-only ones on SVG elements, and for a box cut to its size
// (nothing of it is drawn) only what places it and the boxes after it.
function readVals(cs, which) {
  const vals = new Array(PROPS.length).fill('');
  for (const i of which) {
    const g = GATE[i];
    if (g) {
      // A property that means nothing while another has its default (a border's width and
      // colour without a style, background sizes without an image) is not read.
      const gv = vals[g[0]] || (vals[g[0]] = cs.getPropertyValue(PROPS[g[0]]));
      if (g[1].includes(gv)) continue;
    }
    if (!vals[i]) vals[i] = cs.getPropertyValue(PROPS[i]);
  }
  return vals;
}
const SVG_ONLY = new Set(['x', 'y', 'cx', 'cy', 'r', 'rx', 'ry', 'stop-color', 'stop-opacity', 'flood-color', 'flood-opacity', 'lighting-color', 'mask-type', 'vector-effect']);
const HUSK_PROPS = new Set([
  'display', 'position', 'top', 'right', 'bottom', 'left', 'float', 'clear', 'z-index', 'box-sizing',
  'min-width', 'min-height', 'max-width', 'max-height', 'aspect-ratio', 'margin-top', 'margin-right',
  'margin-bottom', 'margin-left', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'overflow-x', 'overflow-y', 'vertical-align', 'flex-grow', 'flex-shrink', 'flex-basis', 'order',
  'align-self', 'justify-self', 'grid-column-start', 'grid-column-end', 'grid-row-start',
  'grid-row-end', 'contain', 'content-visibility', 'writing-mode', 'direction',
]);
// gate property, its values that make the dependents meaningless, the dependents
/** @typedef {[string, string[], string[]]} Gate */
/** @type {Gate[]} */
const GATES = [
  ...['top', 'right', 'bottom', 'left'].map(/** @returns {Gate} */ (side) => [`border-${side}-style`, ['none', 'hidden'], [`border-${side}-width`, `border-${side}-color`]]),
  ['outline-style', ['none'], ['outline-width', 'outline-color', 'outline-offset']],
  ['background-image', ['none'], ['background-size', 'background-position-x', 'background-position-y', 'background-repeat', 'background-origin', 'background-blend-mode']],
  ['border-image-source', ['none'], ['border-image-slice', 'border-image-width', 'border-image-outset', 'border-image-repeat']],
  ['mask-image', ['none'], ['mask-size', 'mask-position', 'mask-repeat', 'mask-mode', 'mask-composite']],
  ['-webkit-mask-image', ['none'], ['-webkit-mask-size', '-webkit-mask-position', '-webkit-mask-repeat']],
  ['text-decoration-line', ['none'], ['text-decoration-color', 'text-decoration-style', 'text-decoration-thickness']],
  ['position', ['static'], ['top', 'right', 'bottom', 'left']],
  ['perspective', ['none'], ['perspective-origin']],
  ['column-rule-style', ['none'], ['column-rule-width', 'column-rule-color']],
  ['display', ['block', 'inline', 'inline-block', 'list-item', 'table-cell', 'table-row', 'table', 'flow-root', 'contents'], [
    'flex-direction', 'flex-wrap', 'justify-content', 'align-items', 'justify-items', 'grid-template-columns',
    'grid-template-rows', 'grid-template-areas', 'grid-auto-flow', 'grid-auto-columns', 'grid-auto-rows']],
];
const GATE = [];
for (const [gate, none, deps] of GATES) for (const d of deps) GATE[PROPS.indexOf(d)] = [PROPS.indexOf(gate), none];
const ALL_IDX = PROPS.map((_, i) => i);
const HTML_IDX = ALL_IDX.filter((i) => !SVG_ONLY.has(PROPS[i]));
const HUSK_IDX = ALL_IDX.filter((i) => HUSK_PROPS.has(PROPS[i]));

// Rewrites what the copy must not do: scroll containers show no scrollbars (their content is
// shifted instead), content-visibility never skips, url() values become inlined resources.
function fixVals(m, vals, control) {
  if (!control) for (const i of [IDX['overflow-x'], IDX['overflow-y']]) if (vals[i] === 'auto' || vals[i] === 'scroll') vals[i] = 'hidden';
  if (vals[IDX['content-visibility']] !== 'visible') vals[IDX['content-visibility']] = 'visible';
  for (const i of URL_PROPS) {
    const v = vals[i];
    if (v && v.includes('url(')) vals[i] = inlineUrls(m, v);
  }
}
const IDX = Object.fromEntries(PROPS.map((p, i) => [p, i]));
const URL_PROPS = ['background-image', 'border-image-source', 'mask-image', '-webkit-mask-image', 'list-style-image'].map((p) => IDX[p]);

// `url("…")` → a token replaced by the data URL once fetched (or `none` when it cannot be).
function inlineUrls(m, v) {
  return v.replace(/url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)]*?))\s*\)/g, (all, a, b, c) => {
    const u = (a ?? b ?? c ?? '').replace(/\\(.)/g, '$1');
    if (u.startsWith('data:')) return all;
    return 'url("\u0001' + resource(m, absolute(m, u)).res + '\u0001")';
  });
}

function absolute(m, u) {
  try {
    return new URL(u, m.win.document.baseURI).href;
  } catch {
    return u;
  }
}

function overBudget(m) {
  if (++m.count % CHECK_EVERY === 0 && performance.now() > m.env.deadline) m.env.over = true;
  return m.env.over;
}

// One element: its copy's markup into `out`. `pvals`: the parent's values (null for the root, whose
// inherited values are all written); `hoisted`: a fixed element moved to the top level.
function element(m, el, pvals, out, inSvg) {
  const env = m.env;
  if (el.hasAttribute('data-ba-internal') || env.o.skip(el)) return;
  const ns = el.namespaceURI;
  const tag = el.localName;
  if (ns === XHTML && SKIP.has(tag)) return;
  const win = m.win;
  const cs = win.getComputedStyle(el);
  const display = cs.display;
  if (display === 'none') return;
  const svgEl = ns === SVG;
  const svgRoot = svgEl && !inSvg;
  // The copy's tag: the root and body become divs (a fragment parser drops <html>/<body>), custom
  // elements spans (so no page constructor runs on the copy), a same-origin iframe an image.
  let outTag = tag;
  if (!svgEl) {
    if (tag === 'html' || tag === 'body') outTag = 'div';
    // <q> too: the copy draws its quotes as spans, the UA's would come twice.
    else if (tag.includes('-') || ns !== XHTML || tag === 'q') outTag = 'span';
    else if (tag === 'iframe' || tag === 'canvas' || tag === 'video' || tag === 'object' || tag === 'embed') outTag = 'img';
  }
  const d = defaultsOf(env, svgEl ? SVG : XHTML, outTag, outTag === tag ? el : null);
  const r = el.getBoundingClientRect();
  const reg = m.region;
  const sx = reg.sx;
  const sy = reg.sy;
  const over = overBudget(m);
  const visible = r.right + sx >= reg.x - MARGIN && r.left + sx <= reg.x + reg.w + MARGIN &&
    r.bottom + sy >= reg.y - MARGIN && r.top + sy <= reg.y + reg.h + MARGIN;
  const pos = cs.position;
  let husk = false;
  if (!svgEl && HUSKABLE.has(display) && pos !== 'fixed' && tag !== 'html' && tag !== 'body') {
    if (over) {
      husk = true;
      env.budgetHit++;
    } else if (!visible && !m.env.o.fullPage && el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) {
      husk = true;
    }
  }
  const vals = readVals(cs, svgEl ? ALL_IDX : husk ? HUSK_IDX : HTML_IDX);
  fixVals(m, vals, tag === 'textarea');
  // Typed OM computed values where the resolved (px) ones would not lay out the same: a unitless
  // line-height is inherited as a factor, and "23.2px" rounds to a different 1/64 px than 16 × 1.45
  // does (rows drift by a pixel every 64). Sizes: `auto` or not.
  const tm = !svgEl && el.computedStyleMap ? el.computedStyleMap() : null;
  if (tm) {
    const lh = tm.get('line-height');
    if (lh && lh.unit === 'number') vals[IDX['line-height']] = String(lh.value);
  }
  let extra = '';
  const replaced = REPLACED.has(tag) || outTag === 'img';
  // Sizes: written where the page set them (typed OM: not `auto`), for replaced elements and for
  // what is cut or moved (their box must keep its size without its content or context).
  let fixW = husk || replaced || svgRoot;
  let fixH = fixW;
  if (!fixW && tm && display !== 'inline') {
    fixW = String(tm.get('width')) !== 'auto';
    fixH = String(tm.get('height')) !== 'auto';
  }
  if (pos === 'fixed' && !el.offsetParent && tag !== 'html' && tag !== 'body') {
    // Fixed to the viewport: absolute at the place it shows now (document coordinates), moved to
    // the top level so no positioned ancestor shifts it; all inherited values written.
    extra += `position:absolute;left:${px(cs.left) + sx}px;top:${px(cs.top) + sy}px;right:auto;bottom:auto;`;
    fixW = fixH = true;
    const hoist = [];
    emit(m, el, cs, vals, null, d, extra, hoist, tag, outTag, ns, svgEl, inSvg, husk, fixW, fixH, display);
    m.fixed.push(...hoist);
    return;
  }
  if (pos === 'sticky') {
    // Frozen where it is stuck now: relative, offset from where it would sit in the flow.
    const [nx, ny] = flowPlace(win, el, cs);
    extra += `position:relative;left:${r.left - nx}px;top:${r.top - ny}px;right:auto;bottom:auto;`;
  }
  emit(m, el, cs, vals, pvals, d, extra, out, tag, outTag, ns, svgEl, inSvg, husk, fixW, fixH, display);
}

// Where a sticky element would sit if it were not stuck: after its previous sibling, or at its
// parent's content edge (margin collapsing aside).
function flowPlace(win, el, cs) {
  const prev = el.previousElementSibling;
  const parent = el.parentElement;
  if (prev) {
    const pr = prev.getBoundingClientRect();
    const pcs = win.getComputedStyle(prev);
    return [el.getBoundingClientRect().left, pr.bottom + Math.max(px(pcs.marginBottom), px(cs.marginTop)) + 0];
  }
  if (parent) {
    const pr = parent.getBoundingClientRect();
    const pcs = win.getComputedStyle(parent);
    return [el.getBoundingClientRect().left, pr.top + px(pcs.borderTopWidth) + px(pcs.paddingTop) + px(cs.marginTop)];
  }
  const r = el.getBoundingClientRect();
  return [r.left, r.top];
}

function emit(m, el, cs, vals, pvals, d, extra, out, tag, outTag, ns, svgEl, inSvg, husk, fixW, fixH, display) {
  // eslint-disable-next-line no-unused-vars -- unused (dead code, left to the file's owner)
  const env = m.env;
  if (fixW) extra += 'width:' + cs.width + ';';
  if (fixH) extra += 'height:' + cs.height + ';';
  const skipBg = m.rootBg && m.rootBg.el === el;
  m.families.add(vals[1]);
  let key = styleKey(m, cs, vals, pvals, d, extra, skipBg);
  // ::marker and ::placeholder cannot be spans: rules on the class.
  if (display === 'list-item') {
    const mk = m.win.getComputedStyle(el, '::marker');
    let mr = '';
    for (const p of ['color', 'font-size', 'font-weight', 'font-family', 'font-style']) {
      const v = mk.getPropertyValue(p);
      if (v !== cs.getPropertyValue(p)) mr += p + ':' + v + ';';
    }
    const c = mk.getPropertyValue('content');
    if (c && c !== 'normal') mr += 'content:' + c + ';';
    if (mr) key += '\u0002::marker{' + mr + '}';
  }
  if ((tag === 'input' || tag === 'textarea') && el.placeholder && !el.value) {
    const ph = m.win.getComputedStyle(el, '::placeholder');
    const c = ph.getPropertyValue('color');
    if (c !== d.placeholder) key += '\u0002::placeholder{color:' + c + ';opacity:' + ph.getPropertyValue('opacity') + '}';
  }
  const cls = classOf(m, key);
  let attrs = ` class="${cls}"`;
  if (svgEl && !inSvg) attrs += ` xmlns="${SVG}"`;
  for (const a of el.attributes) {
    const n = a.name;
    if (n === 'class' || n === 'style' || n === 'src' || n.startsWith('on')) continue;
    if ((n === 'value' || n === 'checked') && tag !== 'progress' && tag !== 'meter' && tag !== 'li') continue;
    if (svgEl ? /^[A-Za-z_][\w.-]*(:[\w.-]+)?$/.test(n) && !n.startsWith('xmlns') : KEEP.has(n)) {
      const name = n === 'xlink:href' ? 'href' : n;
      if (svgEl && name === 'href' && /^\s*(https?:|\/\/)/.test(a.value)) continue;
      if (!svgEl && tag !== outTag && name !== 'width' && name !== 'height' && name !== 'alt' && name !== 'dir' && name !== 'lang') continue;
      attrs += ` ${name}="${esc(a.value)}"`;
    }
  }
  // Form state lives in properties, not attributes: write it as attributes on the copy.
  if (tag === 'input') {
    const t = el.type;
    if (t === 'checkbox' || t === 'radio') {
      if (el.checked) attrs += ' checked="checked"';
    } else if (t !== 'file' && t !== 'password') {
      attrs += ` value="${esc(el.value)}"`;
    } else if (t === 'password' && el.value) {
      attrs += ` value="${esc(el.value.replace(/./gu, '*'))}"`;
    }
  }
  if (tag === 'option' && el.selected !== el.hasAttribute('selected')) {
    if (el.selected) attrs += ' selected="selected"';
    else attrs = attrs.replace(/ selected="[^"]*"/, '');
  }
  if (tag === 'details' && el.open !== el.hasAttribute('open')) attrs = el.open ? attrs + ' open="open"' : attrs.replace(/ open="[^"]*"/, '');
  if (outTag === 'img') {
    const src = imageOf(m, el, tag);
    // A data URL as the page wrote it may hold `<`, `&` and quotes (an icon's SVG left raw):
    // escaped, or the copy is not well-formed and nothing is drawn.
    out.push(`<img${attrs} src="`, typeof src === 'string' ? esc(src) : src, '"/>');
    return;
  }
  if (VOID.has(outTag) && !svgEl) {
    out.push(`<${outTag}${attrs}/>`);
    return;
  }
  out.push(`<${outTag}${attrs}>`);
  if (husk) {
    out.push(`</${outTag}>`);
    return;
  }
  if (tag === 'textarea') {
    out.push(esc(el.value));
  } else if (tag === 'select') {
    // The options as the browser draws them from the select's own style.
    for (const opt of el.querySelectorAll('option, optgroup')) {
      if (opt.localName === 'optgroup') continue;
      out.push(`<option${opt.selected ? ' selected="selected"' : ''}${opt.disabled ? ' disabled="disabled"' : ''}>${esc(opt.label || opt.text)}</option>`);
    }
  } else {
    const scrolled = (el.scrollTop || el.scrollLeft) && !svgEl && tag !== 'html' && tag !== 'body';
    let inner = out;
    if (scrolled) {
      // The content of a scrolled box, shifted by its scroll offsets inside a wrapper that lays
      // it out as the box did.
      const flexy = /flex|grid/.test(display) ? `display:${display.includes('grid') ? 'grid' : 'flex'};flex-direction:${cs.flexDirection};flex-wrap:${cs.flexWrap};justify-content:${cs.justifyContent};align-items:${cs.alignItems};gap:${cs.rowGap} ${cs.columnGap};grid-template-columns:${cs.gridTemplateColumns};grid-template-rows:${cs.gridTemplateRows};` : '';
      // Negative margins, not positioning: the content stays in the normal paint order (a
      // positioned wrapper would paint over the page's positioned elements).
      const w = el.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight);
      out.push(`<div style="margin:${-el.scrollTop}px 0 0 ${-el.scrollLeft}px;width:${w}px;${flexy}">`);
      inner = out;
    }
    if (!svgEl) pseudo(m, el, vals, '::before', inner);
    children(m, el, vals, inner, svgEl);
    if (!svgEl) pseudo(m, el, vals, '::after', inner);
    if (scrolled) out.push('</div>');
  }
  out.push(`</${outTag}>`);
}

function children(m, el, vals, out, svgEl) {
  // Flat-tree order: an open shadow root's children instead of the light ones; a slot's assigned
  // nodes (or its fallback content).
  let kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  if (el.localName === 'slot' && el.assignedNodes) {
    const a = el.assignedNodes({ flatten: true });
    if (a.length) kids = a;
  }
  const inSvg = svgEl && el.localName !== 'foreignObject';
  for (const k of kids) {
    if (k.nodeType === 3) {
      const t = k.data;
      if (t) {
        out.push(esc(t));
        for (const ch of t) m.chars.add(ch.codePointAt(0));
      }
    } else if (k.nodeType === 1) {
      element(m, k, vals, out, inSvg);
    }
  }
}

// ::before / ::after as real spans (with their own classes) at the start and the end.
function pseudo(m, el, vals, which, out) {
  const tag = el.localName;
  if (REPLACED.has(tag)) return;
  const ps = m.win.getComputedStyle(el, which);
  const content = ps.content;
  if (!content || content === 'none' || content === 'normal' || ps.display === 'none') return;
  const d = defaultsOf(m.env, XHTML, 'span');
  const pv = readVals(ps, HTML_IDX);
  fixVals(m, pv);
  let extra = '';
  if (ps.display !== 'inline') extra = `width:${ps.width};height:${ps.height};`;
  const key = styleKey(m, ps, pv, vals, d, extra, false);
  const parts = [];
  const re = /"((?:[^"\\]|\\[\s\S])*)"|'((?:[^'\\]|\\[\s\S])*)'|attr\(\s*([\w-]+)\s*\)|(open|close)-quote|url\(\s*"?((?:[^"\\)]|\\.)*)"?\s*\)|\//g;
  let mt;
  while ((mt = re.exec(content))) {
    if (mt[0] === '/') break; // alt text for speech follows
    if (mt[1] != null || mt[2] != null) parts.push(esc(unescapeCss(mt[1] ?? mt[2])));
    else if (mt[3]) parts.push(esc(el.getAttribute(mt[3]) || ''));
    else if (mt[4]) {
      const q = [...ps.quotes.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => unescapeCss(x[1]));
      parts.push(esc(mt[4] === 'open' ? q[0] ?? '\u201c' : q[1] ?? '\u201d'));
    }
    else if (mt[5] != null) parts.push('<img style="display:inline" src="', resource(m, absolute(m, unescapeCss(mt[5]))), '"/>');
  }
  out.push(`<span class="${classOf(m, key)}">`, ...parts, '</span>');
}

function unescapeCss(s) {
  return s.replace(/\\([0-9a-fA-F]{1,6}) ?|\\([\s\S])/g, (_, h, c) => h ? String.fromCodePoint(parseInt(h, 16)) : c === '\n' ? '' : c);
}

// The `src` of an element drawn as an image in the copy: a data URL, or a gray placeholder with a
// warning when the pixels cannot be read (cross-origin without CORS, tainted canvas).
function imageOf(m, el, tag) {
  const env = m.env;
  try {
    if (tag === 'canvas') return el.toDataURL('image/png');
    if (tag === 'video') {
      if (el.readyState < 2) return el.poster ? resource(m, el.poster) : BLANK;
      const c = document.createElement('canvas');
      c.width = el.videoWidth;
      c.height = el.videoHeight;
      c.getContext('2d').drawImage(el, 0, 0);
      return c.toDataURL('image/png');
    }
  } catch {
    env.counts.tainted++;
    return GRAY;
  }
  if (tag === 'iframe') {
    // eslint-disable-next-line no-useless-assignment -- both branches below assign it (harmless)
    let fdoc = null;
    try {
      fdoc = el.contentDocument;
    } catch {
      fdoc = null;
    }
    if (!fdoc || !fdoc.documentElement || !el.contentWindow) {
      env.counts.xframe++;
      return GRAY;
    }
    const fw = el.contentWindow;
    const region = regionOf({ fullPage: false }, fw, fdoc);
    region.x = region.sx;
    region.y = region.sy;
    if (!(region.w >= 1 && region.h >= 1)) return BLANK; // an empty frame (another tool's sandbox)
    if (m.depth) return GRAY; // one level of frames
    return { frame: walkDocument(fw, region, env, false, m.depth + 1) };
  }
  if (tag === 'img') {
    const src = el.currentSrc || el.src;
    if (!src) return BLANK;
    if (src.startsWith('data:')) return src;
    return resource(m, src);
  }
  if (tag === 'object' || tag === 'embed') return GRAY;
  return BLANK;
}
const BLANK = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const GRAY = 'data:image/svg+xml,' + encodeURIComponent(`<svg xmlns="${SVG}" width="8" height="8"><rect width="8" height="8" fill="#d8d8d8"/><path d="M0 8L8 0" stroke="#bbb"/></svg>`);

// ---- resources -----------------------------------------------------------------------------

// A URL's bytes as a data URL, through the page's pristine fetch (never logged as page traffic),
// from the HTTP cache when it can. Same-origin requests send cookies as the page would;
// cross-origin ones none, and succeed only with CORS.
function fetchData(env, url) {
  let p = dataUrls.get(url);
  if (p) return p;
  const f = env.o.fetch || window.fetch.bind(window);
  let same = false;
  try {
    same = new URL(url).origin === location.origin;
  } catch { /* keep false */ }
  p = Promise.resolve()
    .then(() => f(url, { cache: 'force-cache', credentials: same ? 'include' : 'omit', mode: same ? 'same-origin' : 'cors' }))
    .then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.blob();
    })
    .then(dataUrlOf)
    .then((d) => ({ ok: true, url: d }), () => ({ ok: false, url: '' }));
  dataUrls.set(url, p);
  // A failed fetch is not cached: the next capture tries again.
  p.then((r) => { if (!r.ok) dataUrls.delete(url); });
  return p;
}

// Resolves every resource of a model (and of its frames) to data URLs; the markup as a string.
async function finish(m, fo) {
  const env = m.env;
  const urls = await Promise.all(m.res.map((u) => fetchData(env, u)));
  const resolved = urls.map((r, i) => {
    if (r.ok) return r.url;
    env.counts.nocors++;
    void i;
    return GRAY;
  });
  const frames = [];
  const all = m.parts.concat(m.fixed);
  for (const p of all) if (p && p.frame) frames.push(p.frame);
  const frameUrls = new Map();
  for (const f of frames) {
    // A frame is its own SVG image; for a live copy (html-in-canvas) drawn to pixels first, since
    // a live <img> of an SVG snaps its text to other pixels than the frame did.
    const url = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(await svgOf(f, f.region));
    const w = Math.ceil(f.region.w);
    const h = Math.ceil(f.region.h);
    frameUrls.set(f, fo ? url : await rasterize(url, w, h).then((c) => encode(c, 'image/png')).then(dataUrlOf).catch(() => GRAY));
  }
  const str = (p) => typeof p === 'string' ? p : p.frame ? esc(frameUrls.get(p.frame)) : esc(resolved[p.res]);
  const body = m.parts.map(str).join('') + m.fixed.map(str).join('');
  let css = '';
  for (let i = 0; i < m.rules.length; i++) {
    const [main, ...pseudos] = m.rules[i].split('\u0002');
    css += `.c${i}{${main}}`;
    for (const p of pseudos) css += `.c${i}${p}`;
  }
  // eslint-disable-next-line no-control-regex -- \u0001 marks a resource's index in the CSS text
  const fill = (t) => t.replace(/\u0001(\d+)\u0001/g, (_, n) => resolved[+n]);
  css = fill(css);
  if (fo) css = (await fontFaces(m)) + css;
  return { body, css, bgImage: fill(m.rootBg.image) };
}

// The markup the renderer paints: a box of the document's layout size with the canvas
// background, the class rules, the copy, the hoisted fixed elements.
function wrap(m, r, { body, css, bgImage }) {
  const bg = m.rootBg;
  const bgCss = `background-color:${bg.color === TRANSPARENT ? '#fff' : bg.color};` + (bgImage ? `background-image:${esc(bgImage)};` : '');
  return `<div xmlns="${XHTML}" style="position:relative;overflow:hidden;margin:0;padding:0;border:0;width:${r.layoutW}px;height:${r.docH}px;${bgCss}"><style>${esc(css)}</style>${body}</div>`;
}

async function svgOf(m, r) {
  const parts = await finish(m, true);
  return `<svg xmlns="${SVG}" width="${r.w}" height="${r.h}" viewBox="${r.x} ${r.y} ${r.w} ${r.h}"><foreignObject x="0" y="0" width="${r.docW}" height="${r.docH}">${wrap(m, r, parts)}</foreignObject></svg>`;
}

// @font-face rules of the families the copy uses, from the page's readable stylesheets, with their
// files inlined (an SVG image loads nothing external). Faces whose unicode-range misses every
// character of the page's text are left out.
async function fontFaces(m) {
  const used = new Set();
  for (const f of m.families) for (const n of f.split(',')) used.add(n.trim().replace(/^["']|["']$/g, '').toLowerCase());
  const faces = [];
  const seen = new Set();
  const visit = (sheet) => {
    if (seen.has(sheet)) return;
    seen.add(sheet);
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      m.env.counts.fontsX++;
      return;
    }
    for (const rule of rules) {
      if (rule.styleSheet) visit(rule.styleSheet);
      else if (rule.cssRules && !(rule instanceof CSSFontFaceRule)) {
        for (const inner of rule.cssRules) if (inner instanceof CSSFontFaceRule) faces.push([inner, sheet]);
      } else if (rule instanceof CSSFontFaceRule) faces.push([rule, sheet]);
    }
  };
  const d = m.win.document;
  for (const s of d.styleSheets) visit(s);
  const roots = [d];
  for (const el of d.querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  for (const root of roots) {
    for (const s of root.adoptedStyleSheets || []) visit(s);
    if (root !== d) for (const s of root.styleSheets) visit(s);
  }
  const out = await Promise.all(faces.map(async ([rule, sheet]) => {
    const st = rule.style;
    const fam = st.getPropertyValue('font-family').trim().replace(/^["']|["']$/g, '');
    if (!used.has(fam.toLowerCase())) return '';
    const range = st.getPropertyValue('unicode-range');
    if (range && !inRange(m.chars, range)) return '';
    const src = st.getPropertyValue('src');
    const base = sheet.href || d.baseURI;
    const urls = [...src.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)\s*(?:format\(\s*["']?([\w-]+)["']?\s*\))?/g)];
    if (!urls.length) return '';
    const pick = urls.find((u) => u[2] === 'woff2') || urls[0];
    let abs;
    try {
      abs = new URL(pick[1], base).href;
    } catch {
      return '';
    }
    const data = await fetchData(m.env, abs);
    if (!data.ok) return '';
    let css = `@font-face{font-family:"${fam}";src:url("${data.url}")${pick[2] ? ` format("${pick[2]}")` : ''};`;
    for (const p of ['font-weight', 'font-style', 'font-stretch', 'unicode-range', 'font-feature-settings', 'ascent-override', 'descent-override', 'line-gap-override', 'size-adjust']) {
      const v = st.getPropertyValue(p);
      if (v) css += `${p}:${v};`;
    }
    return css + 'font-display:block}';
  }));
  return out.join('');
}

function inRange(chars, range) {
  const spans = range.split(',').map((s) => {
    const t = s.trim().replace(/^u\+/i, '');
    if (t.includes('?')) return [parseInt(t.replace(/\?/g, '0'), 16), parseInt(t.replace(/\?/g, 'f'), 16)];
    const [a, b] = t.split('-');
    return [parseInt(a, 16), parseInt(b || a, 16)];
  });
  for (const c of chars) for (const [a, b] of spans) if (c >= a && c <= b) return true;
  return false;
}

// ---- painting ------------------------------------------------------------------------------

// A detached canvas: an OffscreenCanvas where there is one, since its convertToBlob encodes at
// once, while HTMLCanvasElement.toBlob waits for idle time (up to a second on a busy page).
function makeCanvas(w, h) {
  const c = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(w, h) : document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

function encode(c, type, quality) {
  if (c.convertToBlob) return c.convertToBlob({ type, quality });
  return new Promise((resolve) => c.toBlob(resolve, type, quality));
}

function dataUrlOf(blob) {
  return new Promise((resolve, reject) => {
    const fr = new FileReader();
    fr.onload = () => resolve(fr.result);
    fr.onerror = () => reject(fr.error);
    fr.readAsDataURL(blob);
  });
}

async function drawForeignObject(m, r, outW, outH) {
  const svg = await svgOf(m, r);
  return rasterize('data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg), outW, outH);
}

// An SVG data URL drawn on a detached canvas (a data: URL, never blob:, which taints it).
async function rasterize(url, outW, outH) {
  const img = new Image();
  img.decoding = 'sync';
  img.src = url;
  try {
    await img.decode();
  } catch {
    throw new Refusal(`The browser could not draw the page's copy (a ${Math.round(url.length / 1024)} KiB SVG); try a smaller area or maxWidth.`);
  }
  const c = makeCanvas(outW, outH);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, outW, outH);
  ctx.drawImage(img, 0, 0, outW, outH);
  return c;
}

// The copy mounted for one frame in a transparent canvas with `layoutsubtree` (inside a shadow
// root, so the page's CSS cannot restyle it), drawn with drawElementImage when it has painted,
// copied to a detached canvas and removed in the same task.
async function drawHic(m, r, s, outW, outH) {
  const xml = wrap(m, r, await finish(m, false));
  const parsed = new DOMParser().parseFromString(xml, 'application/xhtml+xml');
  if (parsed.querySelector('parsererror')) throw new Error('the copy is not well-formed');
  const content = document.importNode(parsed.documentElement, true);
  const canvas = document.createElement('canvas');
  canvas.setAttribute('data-ba-internal', '');
  canvas.setAttribute('aria-hidden', 'true');
  canvas.setAttribute('layoutsubtree', '');
  canvas.layoutSubtree = true;
  canvas.width = outW;
  canvas.height = outH;
  canvas.style.cssText = `all:initial!important;position:fixed!important;left:0!important;top:0!important;width:${outW / s}px!important;height:${outH / s}px!important;z-index:-2147483647!important;pointer-events:none!important;display:block!important`;
  const host = document.createElement('div');
  host.setAttribute('data-ba-internal', '');
  host.style.cssText = `all:initial!important;display:block!important;width:${r.layoutW}px!important;height:${r.docH}px!important;pointer-events:none!important`;
  const shadow = host.attachShadow({ mode: 'open' });
  shadow.appendChild(content);
  canvas.appendChild(host);
  const imgs = [...content.querySelectorAll('img')];
  await Promise.all(imgs.map((i) => i.decode().catch(() => 0)));
  return await new Promise((resolve, reject) => {
    let done = false;
    const finishDraw = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        const ctx = canvas.getContext('2d');
        // The canvas's CSS size is its bitmap's divided by `s`: drawElementImage scales the
        // element to the bitmap by that ratio itself; the offset is in bitmap pixels.
        ctx.drawElementImage(host, -r.x * s, -r.y * s);
        const out = makeCanvas(outW, outH);
        const o2 = out.getContext('2d');
        o2.fillStyle = '#fff';
        o2.fillRect(0, 0, outW, outH);
        o2.drawImage(canvas, 0, 0);
        resolve(out);
      } catch (e) {
        reject(e);
      } finally {
        canvas.remove();
      }
    };
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      canvas.remove();
      reject(new Error('the copy was not painted within 2 s'));
    }, 2000);
    canvas.addEventListener('paint', finishDraw, { once: true });
    document.documentElement.appendChild(canvas);
    if (canvas.requestPaint) canvas.requestPaint();
  });
}

// ---- the step ----------------------------------------------------------------------------

// The screenshot step, called by the wasm client: capture, upload the encoded bytes to the host
// (never through wasm memory), answer what the host stored. `o` is the step with `element`,
// `fetch` (the page's pristine fetch), `key`, `client`, `prefix`. A screenshot a proof session
// added (`o.proof`) never fails its batch: its failure is its result.
export async function run(o) {
    try {
        return await shootAndUpload(o);
    } catch (e) {
        if (o.proof) return { proofError: String((e && e.message) || e) };
        throw e;
    }
}

async function shootAndUpload(o) {
    const shot = await capture(o);
    const q = new URLSearchParams();
    q.append(__CLIENT_PARAM__, o.client);
    q.append(__WIDTH__, shot.width);
    q.append(__HEIGHT__, shot.height);
    q.append(__MS__, Math.round(shot.ms));
    q.append(__METHOD__, shot.method);
    for (const w of shot.warnings) q.append(__WARN__, w);
    q.append(__PAGE__, location.href);
    const origin = location.origin == 'null' ? '' : location.origin;
    const res = await o.fetch.call(window, origin + o.prefix + __SCREENSHOTS_PATH__ + '?' + q, {
        method: 'POST',
        cache: 'no-store',
        headers: { [__KEY_HEADER__]: o.key, 'content-type': shot.blob.type },
        body: shot.blob,
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.error || 'the host refused the screenshot (' + res.status + ')');
    return answer;
}
