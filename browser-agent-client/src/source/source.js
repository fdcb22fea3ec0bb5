// @ts-check
// Source locations, loaded on the first step that asks for them (`source: true`): for each
// element, the component that renders it and where, read from what each framework's development
// build keeps on its nodes (`docs/source-locations.md`):
//   React ≤ 18: the host fiber's `_debugSource` (the JSX call site, from the jsx-source transform
//     or the automatic runtime's `jsxDEV`), its `_debugOwner` the component;
//   React 19: the host fiber's `_debugStack` (an Error made where the element was created), its
//     first frame after `jsxDEV` mapped through the script's source map;
//   Vue 3: `__vueParentComponent` (dev only) and its `type.__file`; Vue 2: the nearest `__vue__`
//     and its `$options.__file` (both set by vue-loader / @vitejs/plugin-vue in development);
//   Svelte 4 and 5: `__svelte_meta.loc` (file, line, column) on each element in dev builds;
//   Preact: the host vnode (found from the render root's `__k`), its `__source` (jsxDEV) and the
//     component vnode above it;
//   Angular (dev mode): `ng.getOwningComponent`, its class's def's `debugInfo` (AOT builds:
//     the file and the class's line), else the class's name only.
// Answers `{kind, dev, locs}`: `locs[i]` is `[component, file, line]` (file and line may be
// empty / 0) or null; `kind` names the framework found, `dev` whether its build keeps locations.
// Reads are guarded: a page's getters may throw. Fetches use the kept `fetch` (not logged).

/** @type {Partial<BrowserAgent>} */
const agent = window[__GLOBAL__] || {};
const kept = agent.__F_PRISTINE__ || {};
const fetchKept = kept['fetch'] || fetch;

// Most vnodes a Preact tree is searched through, and most source maps fetched per page load.
const MAX_VNODES = 200000;
const MAX_MAPS = 32;

/** A property, or undefined when its getter throws. */
function get(o, k) {
    try {
        return o == null ? undefined : o[k];
    } catch (e) {
        return undefined;
    }
}

/** The own property of `o` whose name starts with `prefix` (React's `__reactFiber$…`). */
function ownStarting(o, prefix) {
    let keys;
    try {
        keys = Object.keys(o);
    } catch (e) {
        return undefined;
    }
    for (let i = 0; i < keys.length; i++) if (keys[i].startsWith(prefix)) return get(o, keys[i]);
    return undefined;
}

/** A path as the project names it: a URL's path (query and hash dropped), from its `src/`. */
export function projectPath(p) {
    if (!p) return '';
    let s = String(p);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
        try {
            s = decodeURIComponent(new URL(s).pathname);
        } catch (e) {}
    }
    s = s.replace(/[?#].*$/, '').replace(/\\/g, '/');
    // Vite's /@fs/ prefix for files outside the root.
    s = s.replace(/^\/@fs\//, '/');
    const at = s.lastIndexOf('/src/');
    if (at >= 0 && s.indexOf('/node_modules/', at) < 0) return s.slice(at + 1);
    if (s.startsWith('./')) return s.slice(2);
    return s;
}

// ---- React ------------------------------------------------------------------------------

/** A React component's name (function, class, memo, forwardRef; a server component's info). */
function reactName(owner) {
    if (!owner) return '';
    const t = get(owner, 'type');
    if (typeof t === 'function') return t.displayName || t.name || '';
    if (t && typeof t === 'object') {
        const inner = get(t, 'render') || get(t, 'type');
        return get(t, 'displayName') || (inner && (inner.displayName || inner.name)) || '';
    }
    // React 19 server components: a ReactComponentInfo `{name}`.
    return typeof get(owner, 'name') === 'string' ? owner.name : '';
}

/** The JSX call site in a React 19 debug stack: the frame after the one inside `jsxDEV`. */
function callSite(stack) {
    const lines = String(stack || '').split('\n');
    let frames = 0;
    for (let i = 0; i < lines.length; i++) {
        const m = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?\s*$/.exec(lines[i]);
        if (!m) continue;
        if (frames++ === 0) continue;
        return { fn: m[1] || '', url: m[2], line: +m[3], column: +m[4] };
    }
    return null;
}

/** What a React fiber says, read now (React removes its keys from elements it unmounts); a
 * React 19 stack's call site is mapped later (`finish`). */
function react(fiber) {
    const dev = '_debugOwner' in fiber;
    if (!dev) return { kind: 'React', dev: false, loc: null };
    const name = reactName(get(fiber, '_debugOwner'));
    const src = get(fiber, '_debugSource');
    if (src && src.fileName) return { kind: 'React', dev: true, loc: [name, projectPath(src.fileName), src.lineNumber | 0] };
    const stack = get(get(fiber, '_debugStack'), 'stack');
    const site = stack && callSite(stack);
    if (site) return { kind: 'React', dev: true, loc: [name || site.fn, projectPath(site.url), site.line], site };
    return { kind: 'React', dev: true, loc: name ? [name, '', 0] : null };
}

// ---- Source maps (React 19's stacks point into the served, compiled scripts) ---------------

/** @type {Map<string, Promise<any>>} */
const maps = new Map();

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes a source map's `mappings` into, per generated line, `[col, source, line, col]` rows. */
function decode(mappings) {
    const out = [];
    let src = 0,
        oline = 0,
        ocol = 0;
    const groups = mappings.split(';');
    for (let g = 0; g < groups.length; g++) {
        const row = [];
        let gcol = 0;
        const segs = groups[g].split(',');
        for (let s = 0; s < segs.length; s++) {
            const seg = segs[s];
            if (!seg) continue;
            const v = [];
            let shift = 0,
                value = 0;
            for (let i = 0; i < seg.length; i++) {
                const d = B64.indexOf(seg[i]);
                value += (d & 31) << shift;
                if (d & 32) shift += 5;
                else {
                    v.push(value & 1 ? -(value >>> 1) : value >>> 1);
                    shift = value = 0;
                }
            }
            gcol += v[0];
            if (v.length >= 4) {
                src += v[1];
                oline += v[2];
                ocol += v[3];
                row.push([gcol, src, oline, ocol]);
            }
        }
        out.push(row);
    }
    return out;
}

/** The source map of the script at `url` (fetched once), or null. */
function mapOf(url) {
    let p = maps.get(url);
    if (p) return p;
    if (maps.size >= MAX_MAPS) return Promise.resolve(null);
    p = (async () => {
        const text = await (await fetchKept(url, { credentials: 'same-origin' })).text();
        // The last `sourceMappingURL` comment (an inline map can be megabytes long).
        const at = text.lastIndexOf('sourceMappingURL=');
        const m = at >= 2 && /^\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(text.slice(at - 4).replace(/^\s*/, ''));
        if (!m) return null;
        let json;
        if (m[1].startsWith('data:')) {
            const comma = m[1].indexOf(',');
            const body = m[1].slice(comma + 1);
            const raw = /;base64$/.test(m[1].slice(0, comma)) ? atob(body) : decodeURIComponent(body);
            json = new TextDecoder().decode(Uint8Array.from(raw, (c) => c.charCodeAt(0)));
        } else {
            json = await (await fetchKept(new URL(m[1], url).href, { credentials: 'same-origin' })).text();
        }
        const map = JSON.parse(json);
        if (!map || typeof map.mappings !== 'string') return null;
        const base = new URL(m[1].startsWith('data:') ? url : new URL(m[1], url).href);
        const root = map.sourceRoot ? String(map.sourceRoot).replace(/\/?$/, '/') : '';
        return { rows: decode(map.mappings), sources: (map.sources || []).map((s) => new URL(root + s, base).href) };
    })().catch(() => null);
    maps.set(url, p);
    return p;
}

/** Where a generated position (1-based line and column) came from: `{source, line}` or null. */
async function original(url, line, column) {
    const map = await mapOf(url);
    const row = map && map.rows[line - 1];
    if (!row) return null;
    let best = null;
    for (let i = 0; i < row.length; i++) if (row[i][0] <= column - 1) best = row[i];
    if (!best) best = row[0];
    if (!best) return null;
    return { source: map.sources[best[1]] || '', line: best[2] + 1 };
}

// ---- Vue ---------------------------------------------------------------------------------

/** A Vue component's name: its own, else its file's base name. */
function vueName(options, file) {
    const n = get(options, 'name') || get(options, '__name');
    if (n) return String(n);
    const m = /([^/\\]+)\.vue$/.exec(file || '');
    return m ? m[1] : '';
}

/** @param {any} el */
function vue(el) {
    for (let e = el; e; e = e.parentElement) {
        const inst = get(e, '__vueParentComponent');
        if (inst) {
            const file = get(get(inst, 'type'), '__file') || '';
            return { kind: 'Vue', dev: true, loc: [vueName(get(inst, 'type'), file), projectPath(file), 0] };
        }
        let vm = get(e, '__vue__');
        if (vm) {
            // An element shared by a parent and the component it renders at its root (`new
            // Vue({render: h => h(App)})`) is the innermost one's.
            for (let n = 0, inner; n < 50 && (inner = get(get(vm, '_vnode'), 'componentInstance')); n++) vm = inner;
            const opts = get(vm, '$options');
            const file = get(opts, '__file') || '';
            const dev = !!file || !!get(vm, '_renderProxy') && get(vm, '_renderProxy') !== vm;
            if (!file && !dev) return { kind: 'Vue', dev: false, loc: null };
            return { kind: 'Vue', dev: true, loc: [vueName(opts, file) || get(opts, '_componentTag') || '', projectPath(file), 0] };
        }
        if (get(e, '__vue_app__')) return { kind: 'Vue', dev: false, loc: null };
    }
    return null;
}

// ---- Svelte ------------------------------------------------------------------------------

/** @param {any} el */
function svelte(el) {
    for (let e = el; e; e = e.parentElement) {
        const meta = get(e, '__svelte_meta');
        const loc = get(meta, 'loc');
        if (!loc) continue;
        const file = String(loc.file || '');
        const m = /([^/\\]+)\.svelte$/.exec(file);
        // Svelte 4's `add_location` gets a 0-based line (its `char` field tells it apart);
        // Svelte 5's locations are 1-based.
        const line = 'char' in loc ? (loc.line | 0) + 1 : loc.line | 0;
        return { kind: 'Svelte', dev: true, loc: [m ? m[1] : '', projectPath(file), line] };
    }
    return null;
}

// ---- Preact ------------------------------------------------------------------------------

/** dom → vnode per Preact root, made anew for each call of `locate`. @type {WeakMap<object, Map<any, any>>} */
let preactIndex = new WeakMap();

/** @param {any} el */
function preact(el) {
    let root = null;
    for (let e = el; e && !root; e = e.parentNode) {
        const k = get(e, '__k');
        if (k && typeof k === 'object' && 'type' in k) root = e;
    }
    if (!root) return null;
    let index = preactIndex.get(root);
    if (!index) {
        index = new Map();
        const todo = [get(root, '__k')];
        let n = 0;
        while (todo.length && n++ < MAX_VNODES) {
            const v = todo.pop();
            if (!v) continue;
            const dom = get(v, '__e');
            if (dom && typeof get(v, 'type') === 'string') index.set(dom, v);
            const kids = get(v, '__k');
            if (kids) for (let i = 0; i < kids.length; i++) todo.push(kids[i]);
        }
        preactIndex.set(root, index);
    }
    let v = null;
    for (let e = el; e && !v; e = e.parentElement) v = index.get(e);
    if (!v) return { kind: 'Preact', dev: false, loc: null };
    let owner = get(v, '__');
    while (owner && typeof get(owner, 'type') !== 'function') owner = get(owner, '__');
    const t = owner && get(owner, 'type');
    const name = t ? t.displayName || t.name || '' : '';
    const src = get(v, '__source');
    if (src && src.fileName) return { kind: 'Preact', dev: true, loc: [name, projectPath(src.fileName), src.lineNumber | 0] };
    return { kind: 'Preact', dev: false, loc: null };
}

// ---- Angular -----------------------------------------------------------------------------

/** @param {any} el */
function angular(el) {
    const ng = get(window, 'ng');
    const owning = ng && get(ng, 'getOwningComponent');
    if (typeof owning !== 'function') {
        // A production Angular app marks its root with `ng-version` and keeps no `ng` global.
        return el.closest && el.closest('[ng-version]') ? { kind: 'Angular', dev: false, loc: null } : null;
    }
    let c = null;
    try {
        c = owning(el);
    } catch (e) {}
    if (!c) return null;
    const ctor = get(c, 'constructor');
    // AOT development builds (Angular >= 17.2) keep `ɵsetClassDebugInfo`'s {className, filePath,
    // lineNumber} (the class's line; the file relative to the project) on the component def.
    const info = get(get(ctor, '\u0275cmp'), 'debugInfo');
    const file = projectPath(get(info, 'filePath'));
    const name = get(info, 'className') || (ctor && ctor.name) || '';
    return { kind: 'Angular', dev: true, loc: [String(name), file, file ? get(info, 'lineNumber') | 0 : 0] };
}

// ---- The entry point ---------------------------------------------------------------------

/** One element's answer, read now, or null when no framework renders it. @param {any} el */
function capture(el) {
    if (!el) return null;
    for (let e = el; e; e = e.parentElement) {
        const fiber = ownStarting(e, '__reactFiber$');
        if (fiber) return react(fiber);
        if (get(e, '__svelte_meta') || get(e, '__vueParentComponent') || get(e, '__vue__')) break;
    }
    return svelte(el) || vue(el) || preact(el) || angular(el);
}

/** A captured answer with its React 19 call site mapped through the script's source map. */
async function finish(r) {
    if (r && r.site) {
        const orig = await original(r.site.url, r.site.line, r.site.column);
        if (orig) r.loc = [r.loc[0], projectPath(orig.source), orig.line];
    }
    return r;
}

/** What the page says of `el` now (an acting step's target, before the step may remove it), for
 * `answer`. @param {any} el */
export function snap(el) {
    preactIndex = new WeakMap();
    try {
        return capture(el);
    } catch (e) {
        return null;
    }
}

/**
 * `{kind, dev, locs}` for `elements` (or for answers `snap` took, with `taken`): `locs[i]` is
 * `[component, file, line]` or null; `kind`: the frameworks found (`React`, `Vue, Svelte`…), empty
 * when none; `dev`: whether any keeps locations.
 * @param {any[]} elements
 * @param {boolean} [taken]
 */
export async function locate(elements, taken) {
    const kinds = [];
    let dev = false;
    const locs = [];
    preactIndex = new WeakMap();
    for (let i = 0; i < elements.length; i++) {
        let r = null;
        try {
            r = await finish(taken ? elements[i] : capture(elements[i]));
        } catch (e) {}
        locs[i] = r && r.loc && (r.loc[0] || r.loc[1]) ? r.loc : null;
        if (r) {
            if (kinds.indexOf(r.kind) < 0) kinds[kinds.length] = r.kind;
            dev = dev || r.dev;
        }
    }
    return { kind: kinds.join(', '), dev, locs };
}

/**
 * Where `elements` are rendered, for a note: each location once, written as
 * `browser_agent_protocol::source::location` writes it (`TodoItem src/TodoItem.jsx:6`), `; `
 * between them; else `none (why)` as `source::why_none` says it.
 * @param {any[]} elements
 */
export async function summary(elements) {
    const r = await locate(elements);
    const out = [];
    for (let i = 0; i < r.locs.length; i++) {
        const l = r.locs[i];
        if (!l) continue;
        const file = l[1] ? l[1] + (l[2] > 0 ? ':' + l[2] : '') : '';
        const t = l[0] && file ? l[0] + ' ' + file : l[0] || file;
        if (out.indexOf(t) < 0) out[out.length] = t;
    }
    if (out.length) return out.join('; ');
    const why = !r.kind
        ? 'no development build of React, Vue, Svelte, Preact or Angular: no source locations'
        : r.dev
          ? r.kind + ' names no component here'
          : r.kind + ' production build: no source locations';
    return 'none (' + why + ')';
}

// ---- where the page's scripts spent an acting step's time ---------------------------------------

/** Page script time under which a step's answer says nothing of it (a long task's threshold). */
const HOT_MIN_MS = 50;
/** Functions named per step, after the hottest. */
const HOT_MORE = 2;

/** `1.2 s` or `230 ms`. @param {number} ms */
function took(ms) {
    return ms >= 1000 ? (Math.round(ms / 100) / 10).toFixed(1) + ' s' : Math.round(ms) + ' ms';
}

/**
 * What the page's own scripts did in each window (`[start, end]`, an acting step's, in
 * `performance.now()` time) of a JS Self-Profiling trace: `''` when they ran under
 * `HOT_MIN_MS`, else `the page's scripts ran 1.2 s: buildIndex src/lib/match.js:9 (1.0 s) ←
 * filterOrders src/lib/match.js:45 ← OrdersTable src/components/OrdersTable.jsx:4; …`. Each
 * sample counts for the frame nearest its leaf that is the project's own (a page script, not the
 * agent's, whose source-mapped file is not under `node_modules`), else the nearest page frame; a
 * position is where its function starts, mapped through its script's source map.
 * @param {any} trace the `ProfilerTrace` (`frames`, `resources`, `stacks`, `samples`)
 * @param {number[][]} windows
 * @param {string} own the URL prefix of the agent's own scripts
 */
export async function hot(trace, windows, own) {
    const frames = trace.frames || [],
        stacks = trace.stacks || [],
        samples = trace.samples || [],
        resources = trace.resources || [];
    /** @type {Map<number, Promise<any>>} */
    const where = new Map();
    // A frame's place: `{url, text, project}`, or null for the agent's frames and natives.
    const place = (/** @type {number} */ id) => {
        let p = where.get(id);
        if (p) return p;
        p = (async () => {
            const f = frames[id];
            const url = f && f.resourceId != null ? String(resources[f.resourceId] || '') : '';
            if (!url || url.startsWith(own)) return null;
            let file = projectPath(url),
                line = f.line || 0;
            const orig = line ? await original(url, line, f.column || 1).catch(() => null) : null;
            if (orig && orig.source) {
                file = projectPath(orig.source);
                line = orig.line;
            }
            const text = (f.name || '(anonymous)') + ' ' + file + (line ? ':' + line : '');
            return { text, project: file.indexOf('node_modules/') < 0 };
        })();
        where.set(id, p);
        return p;
    };
    // A sample's page frames, leaf first.
    const chain = async (/** @type {number | undefined} */ stackId) => {
        const out = [];
        for (let s = stackId, n = 0; s != null && n < 200; s = stacks[s].parentId, n++) {
            const p = await place(stacks[s].frameId);
            if (p) out.push(p);
        }
        return out;
    };
    const answers = [];
    for (const [start, end] of windows) {
        /** @type {Map<string, {ms: number, callers: Map<string, number>}>} */
        const by = new Map();
        let total = 0;
        for (let i = 0; i < samples.length; i++) {
            const s = samples[i];
            if (s.timestamp < start || s.timestamp > end || s.stackId == null) continue;
            const next = samples[i + 1];
            const ms = Math.min(next ? next.timestamp - s.timestamp : 10, 50);
            const c = await chain(s.stackId);
            if (!c.length) continue;
            let at = c.findIndex((p) => p.project);
            if (at < 0) at = 0;
            total += ms;
            const key = c[at].text;
            let e = by.get(key);
            if (!e) by.set(key, (e = { ms: 0, callers: new Map() }));
            e.ms += ms;
            const up = c
                .slice(at + 1)
                .filter((p) => p.project)
                .slice(0, 2)
                .map((p) => ' ← ' + p.text)
                .join('');
            e.callers.set(up, (e.callers.get(up) || 0) + ms);
        }
        if (total < HOT_MIN_MS) {
            answers.push('');
            continue;
        }
        const ranked = [...by.entries()].sort((a, b) => b[1].ms - a[1].ms);
        const parts = ranked
            .slice(0, 1 + HOT_MORE)
            .filter(([, e], i) => i == 0 || e.ms >= total / 10)
            .map(([text, e], i) => {
            let line = text + ' (' + took(e.ms) + ')';
            if (i == 0) line += [...e.callers.entries()].sort((a, b) => b[1] - a[1])[0][0];
            return line;
        });
        answers.push("the page's scripts ran " + took(total) + ': ' + parts.join('; '));
    }
    return answers;
}
