// @ts-check
// The `evaluate` step, loaded on the first evaluate (it was Rust in the code every page loads):
// runs the agent's script as an async function (through a nonce'd `<script>` where the page's CSP
// forbids `eval`) and returns a JSON-safe copy of what it returned. Depth ≤ 10, ≤ 500 items or
// keys, strings ≤ 20,000 UTF-16 units, 20,000 values in all; cycles marked, DOM nodes described
// (`label`: the element as the snapshot names it), errors as `{__type, name, message, stack}`.
// Its placeholders are filled from the Rust constants by scripts/build-bootstrap.mjs.

const DEPTH = 10;
const ITEMS = 500;
const CHARS = 20000;
const VALUES = 20000;
// The built-ins as they were before the page's scripts ran (the bootstrap keeps them): pages
// replace or break `Array.from`, `Reflect.get`, `Array.prototype.push`… Arrays are filled by index
// and searched by loops for the same reason.
/** @type {Partial<BrowserAgent>} */
const agent = window[__GLOBAL__] || {};
const kept = agent.__F_PRISTINE__ || {};
const from = kept['Array.from'] || Array.from;
const isArray = kept['Array.isArray'] || Array.isArray;
const read = kept['Reflect.get'] || Reflect.get;
const own = kept['Object.getOwnPropertyDescriptor'] || Object.getOwnPropertyDescriptor;
const tagOf = (kept['Object.prototype'] || Object.prototype).toString;
const apply = kept['Reflect.apply'] || Reflect.apply;

// A property, or undefined when its getter throws.
function get(o, k) {
    try {
        return o[k];
    } catch (e) {}
}

// `String(v)`, never throwing.
function text(v) {
    try {
        return String(v);
    } catch (e) {
        return '';
    }
}

// `t` cut to `max` UTF-16 units, then `…(+N chars)`.
function cut(t, max) {
    return t.length <= max ? t : t.slice(0, max) + '…(+' + (t.length - max) + ' chars)';
}

// Whitespace runs as one space (not no-break spaces), zero-width spaces and soft hyphens dropped.
function squash(t) {
    return t
        .replace(/[\u200b\u00ad]/g, '')
        .replace(/[^\S\u00a0]+/g, ' ')
        .replace(/^ | $/g, '')
        .replace(/^\u00a0+|\u00a0+$/g, '');
}

// A DOM node described: `{__type:"Element", tag, id?, class?, text?, html, label?}`.
function node(v) {
    if (get(v, 'nodeType') !== 1) {
        const o = { __type: 'Node', nodeName: get(v, 'nodeName') };
        const t = get(v, 'textContent');
        if (typeof t == 'string') o.text = cut(squash(t), 200);
        return o;
    }
    const o = { __type: 'Element', tag: v.localName };
    const id = v.getAttribute('id');
    if (id != null) o.id = id;
    const c = v.getAttribute('class');
    if (c != null) o.class = c;
    const t = squash(v.textContent || '');
    if (t) o.text = cut(t, 200);
    o.html = cut(v.outerHTML, 1000);
    const describe = agent.__F_DESCRIBE__;
    if (v.isConnected && describe) o.label = describe(v, true);
    return o;
}

// The copy of `value`.
function copy(value) {
    let left = VALUES;
    const seen = [];
    function safe(v, depth) {
        if (left == 0) return '[Truncated]';
        left--;
        if (v === undefined) return '[undefined]';
        if (v === null || typeof v == 'boolean') return v;
        if (typeof v == 'number') return isFinite(v) ? v : text(v);
        if (typeof v == 'string') return cut(v, CHARS);
        if (typeof v == 'bigint') return text(v) + 'n';
        if (typeof v == 'symbol') return text(v);
        if (typeof v == 'function') {
            const name = get(v, 'name');
            return '[Function: ' + (typeof name == 'string' && name ? name : 'anonymous') + ']';
        }
        for (let i = 0; i < seen.length; i++) if (seen[i] === v) return '[Circular]';
        if (depth >= DEPTH) return '[Max depth]';
        if (typeof get(v, 'nodeType') == 'number' && typeof get(v, 'nodeName') == 'string') return node(v);
        let tag = '';
        try {
            tag = apply(tagOf, v, []);
        } catch (e) {}
        if (tag == '[object Error]' || tag == '[object DOMException]') {
            const stack = get(v, 'stack');
            return {
                __type: 'Error',
                name: get(v, 'name'),
                message: get(v, 'message'),
                stack: typeof stack == 'string' ? cut(stack, 2000) : null,
            };
        }
        try {
            if (tag == '[object Date]') return v.toISOString();
            if (tag == '[object RegExp]') return v.toString();
        } catch (e) {
            return tag == '[object Date]' ? 'Invalid Date' : null;
        }
        if (tag == '[object Promise]') return '[Promise]';
        if (tag == '[object Window]') return '[Window]';
        seen[seen.length] = v;
        let out;
        const listy = tag == '[object Set]' || tag == '[object NodeList]' || tag == '[object HTMLCollection]';
        if (isArray(v) || listy || typeof get(v, 'BYTES_PER_ELEMENT') == 'number') {
            let items = [];
            try {
                items = from(v);
            } catch (e) {}
            out = [];
            for (let i = 0; i < items.length && i < ITEMS; i++) out[i] = safe(items[i], depth + 1);
            if (items.length > ITEMS) out[ITEMS] = '…(+' + (items.length - ITEMS) + ' more)';
        } else {
            out = {};
            // [key, value] pairs: a Map's entries, else the own enumerable keys, read one by one (a
            // throwing getter spoils only its own key).
            let entries = [];
            if (tag == '[object Map]') {
                try {
                    entries = from(v.entries());
                } catch (e) {}
            } else {
                for (const k in v) {
                    let val;
                    try {
                        if (!own(v, k)) continue;
                        val = read(v, k);
                    } catch (e) {
                        val = '[Unserializable: ' + text(get(e, 'message')) + ']';
                    }
                    entries[entries.length] = [k, val];
                }
            }
            for (let i = 0; i < entries.length && i < ITEMS; i++) {
                const k = entries[i][0];
                out[typeof k == 'string' ? k : text(k)] = safe(entries[i][1], depth + 1);
            }
            if (entries.length > ITEMS) out['…'] = entries.length - ITEMS + ' more keys';
        }
        seen.length--;
        return out;
    }
    return safe(value, 0);
}

// What a failure throws: `{message}` (read by the client's module loader), its text
// `evaluate failed: TypeError: x is undefined` and the first five stack lines (the host rewrites
// them to the script's own lines).
function failed(e) {
    let m = 'evaluate failed: ';
    const name = get(e, 'name');
    const message = get(e, 'message');
    if (typeof name == 'string' && typeof message == 'string') {
        m += name + ': ' + message;
        const stack = get(e, 'stack');
        if (typeof stack == 'string') {
            // Lines 2 to 6, read by index (the page may have replaced `split` or `slice`).
            let at = stack.indexOf('\n');
            for (let n = 0; at >= 0 && n < 5; n++) {
                const end = stack.indexOf('\n', at + 1);
                m += stack.substring(at, end < 0 ? stack.length : end);
                at = end;
            }
        }
    } else m += text(e);
    return { message: m };
}

// The two ways `src` is compiled, in the order they are tried: as an async function's expression
// (returned), or, when that does not parse, as its body.
function forms(src) {
    return [
        '(async () => (\n' + src.trim().replace(/;+$/, '') + '\n))()',
        '(async () => {\n' + src + '\n})()',
    ];
}

// `src` compiled into a function (the first form that parses). Throws what the compiler threw:
// the body's SyntaxError, an EvalError under a CSP that forbids `eval`.
function compile(src) {
    const [expr, body] = forms(src);
    try {
        return new Function('return ' + expr);
    } catch (e) {
        if (get(e, 'name') !== 'SyntaxError') throw e;
    }
    return new Function('return ' + body);
}

// The nonce of the injected tag, copied from the page's CSP; undefined when it has none.
function scriptNonce() {
    /** @type {HTMLScriptElement | null} */
    const tag = document.querySelector('script[' + __CONFIG_ATTR__ + ']');
    return (tag && tag.nonce) || undefined;
}

// Runs `src` through a `<script>` that carries `nonce` (for pages whose CSP forbids `eval` but
// allows our tag by nonce), in the first form that parses: the promise it leaves on the agent's
// global. Throws the last form's SyntaxError when none parses.
function viaScript(src, nonce) {
    const [expr, body] = forms(src);
    // Nothing can test a form here without running it, and a form that does not parse is the
    // page's error event too (only the bootstrap's listener, told by the 0 below, leaves it out):
    // a script that begins with a statement's keyword is no expression, so its body goes first.
    const statement = /^\s*(const|let|var|if|for|while|do|switch|try|throw|return)\b/.test(src);
    let error;
    const seen = (e) => {
        e.preventDefault();
        error = e.error;
    };
    for (const form of statement ? [body] : [expr, body]) {
        agent.__F_EVAL__ = 0;
        const script = document.createElement('script');
        script.nonce = nonce;
        script.textContent = 'window.' + __GLOBAL__ + '.__F_EVAL__ = ' + form + ';';
        addEventListener('error', seen, true);
        try {
            (document.head || document.documentElement).appendChild(script);
        } finally {
            removeEventListener('error', seen, true);
            script.remove();
        }
        const p = agent.__F_EVAL__;
        agent.__F_EVAL__ = undefined;
        if (p && typeof p == 'object') return p;
    }
    // Chromium words it as appendChild's failure; the parser's own words are what `eval` gives.
    throw {
        name: get(error, 'name'),
        message: text(get(error, 'message')).replace(/^Failed to execute '[^']*' on '[^']*': /, ''),
    };
}

// The `evaluate` step: runs `src` and returns the copy of its result, made as its promise settles
// (before what the script set off, a navigation on the next frame, has happened); `undefined`
// when it returned nothing. A failure throws `{message}`.
export async function run(src) {
    let promise;
    try {
        promise = apply(compile(src), window, []);
    } catch (e) {
        if (get(e, 'name') !== 'EvalError') throw failed(e);
        const nonce = scriptNonce();
        if (!nonce)
            throw {
                message:
                    "evaluate failed: the page's Content-Security-Policy forbids running code from a string ('unsafe-eval' is not allowed and the agent's script tag has no nonce)",
            };
        try {
            promise = viaScript(src, nonce);
        } catch (e) {
            throw failed(e);
        }
    }
    let value;
    try {
        value = await promise;
    } catch (e) {
        throw failed(e);
    }
    // A script that returns nothing (`undefined`) has no value: the step's result is left out
    // (the text answers say "no value"), where the string "[undefined]" read like data. Inside a
    // value, `undefined` stays "[undefined]" (JSON has no such value).
    if (value === undefined) return undefined;
    try {
        return copy(value);
    } catch (e) {
        throw failed(e);
    }
}
