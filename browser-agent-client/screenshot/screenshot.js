// Provisional capture (replaced by the full rasterizer): clone with computed styles → SVG
// foreignObject → canvas → Blob.
const PROPS = ['display', 'position', 'top', 'left', 'right', 'bottom', 'width', 'height', 'margin', 'padding',
    'border', 'border-radius', 'box-sizing', 'color', 'background-color', 'font', 'line-height', 'text-align',
    'white-space', 'flex-direction', 'justify-content', 'align-items', 'gap', 'grid-template-columns', 'opacity',
    'overflow', 'text-decoration', 'list-style'];

function copy(el, skip) {
    if (el.nodeType === 3) return document.createTextNode(el.data);
    if (el.nodeType !== 1 || skip(el)) return null;
    const tag = el.localName;
    if (tag === 'script' || tag === 'style' || tag === 'link' || tag === 'meta') return null;
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return null;
    const out = document.createElementNS('http://www.w3.org/1999/xhtml', tag === 'body' ? 'div' : tag);
    out.setAttribute('style', PROPS.map((p) => p + ':' + cs.getPropertyValue(p)).join(';'));
    if ('value' in el && tag === 'input') out.setAttribute('value', el.value);
    for (const c of el.childNodes) {
        const k = copy(c, skip);
        if (k) out.appendChild(k);
    }
    return out;
}

export async function capture(opts) {
    const t0 = performance.now();
    const skip = (el) => el.hasAttribute('__UI_ATTR__');
    const w = innerWidth, h = innerHeight;
    const root = copy(document.body, skip);
    root.style.transform = 'translate(' + -scrollX + 'px,' + -scrollY + 'px)';
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '"><foreignObject width="100%" height="100%">' +
        new XMLSerializer().serializeToString(root) + '</foreignObject></svg>';
    const img = new Image();
    img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
    await img.decode();
    const scale = Math.min(opts.scale || 1, (opts.maxWidth || 1568) / w);
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext('2d');
    const jpeg = opts.format === 'jpeg' || opts.format === 'jpg';
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((ok) => canvas.toBlob(ok, jpeg ? 'image/jpeg' : 'image/png', opts.quality || 0.8));
    return { blob, width: canvas.width, height: canvas.height, method: 'foreignobject', warnings: [], ms: performance.now() - t0 };
}

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
