// @ts-check
// The inline bootstrap of the browser-agent page client: the readable source.
//
// `scripts/build-client` fills in the placeholders (upper-case names between double underscores) from the Rust constants that own them
// (browser-agent-core/src/protocol.rs; the kind bits and the global's name from
// browser-agent-client/src/bootstrap.rs), minifies the result with terser (pinned in
// scripts/install-tools) and writes browser-agent-core/assets/bootstrap.js, which core inlines into
// every HTML page it serves; `scripts/build-client --check` proves that file fresh.
//
// It runs before the page's own scripts. It captures from the first millisecond (console, uncaught
// errors and rejections, fetch and XHR, history navigation) into a bounded queue, keeps pristine
// references to the built-ins it patches, then loads the sensor (a cached module), which drains the
// queue and from then on receives every entry through the hook `h`; the sensor loads the hands
// (the wasm client) when an agent acts.
//
// The global it leaves (`window.__GLOBAL__`) is its contract with the sensor and the wasm client. Field names are
// short because they are read on hot paths and sent in every page. The fields the wasm reads are
// written as identifier placeholders (`agent.__F_QUEUE__`), filled with the names bootstrap.rs
// gives them; `s` and `b` are the bootstrap's own:
//   cfg       the tag's config (TagConfig: key, prefix, rev, client, wasm, cursor)
//   (the sensor, browser-agent-client/sensor/sensor.js, drains q, sets h, and adds `started`, `H`
//   (loads the hands), `oc`, `pc`, `f` and the stubs of the hands' debug hooks; the hands add `tp`,
//   their tap)
//   clientId  this page load's random id
//   q         entries captured before the client hooked in: [entry, kind] pairs, at most 500
//   d         entries dropped from q when it was full
//   s         the last sequence number given to an entry
//   inflight  fetch/XHR requests of the page still running (the network-idle wait reads it)
//   la        time of the last request start or end (epoch ms)
//   td        when the last timer the page set for at most a short while is due (epoch ms)
//   fr        animation frames the page asked for
//   o         the original console methods, fetch, XHR open and send
//   p         the built-ins the wasm glue calls, as they were before the page's scripts ran (see KEPT)
//   h         the client's hook, (entry, kind) => void; 0 until the client runs
//   e         emit(entry, kind): stamps and records an entry (the client's own captures use it)
//   b         1 while the bootstrap runs page code of its own (serializing): captures are dropped
//   l         import() of a module the client loads on first use
//   n         n(command, message): notes mode (its module loaded on first use)
//   g         set by the notes module while notes mode is on: gets the developer's input first
//   x         x(error): the failure report (the sensor calls it when it cannot reach the host)
//   hd        like td, for a timer due within the hover-intent wait
//   w         w(frames, atLeast, intent): the settle wait (reads td, hd and fr)
//   ab        set by the sensor while an agent's batch runs: the page's alert/confirm/prompt are answered
//   at        set by the sensor while an agent is attached: dialogs outside a batch are answered too
//   dh        dh(entry): the hands' answer to a dialog by the running step's policy
//   dl        the dialogs answered while no batch ran, for the next batch's answer
//   bu        set by the hands while a navigation they checked leaves: beforeunload handlers skipped
//   ev        the promise evaluate.js's nonce'd <script> leaves; 0 while it is inserted
//   nb        the page's last 50 requests and socket events, by reference, for the hands' `network`
//             step (commands/actions/network.rs): {e: entry, q: request body, r: response} or
//             {e: entry, m: the socket's last messages}; a ring at nb.i; nb.w: the last 10
//             sockets' messages (m.s: their entries' seqs), so a long-lived one stays reachable
// Its shape, for `tsc` (scripts/js-check), is `BrowserAgent` in browser-agent-client/types/placeholders.d.ts.
(function (win) {
    // Injected twice (a proxy in front of the layer, an HMR reload of the head): patch once.
    if (win[__GLOBAL__]) return;

    var doc = document;
    var loc = location;
    var hist = history;
    var con = console;
    // What the bootstrap calls later, taken before any page script can replace or patch it
    // (frameworks of every era extend or replace built-ins: MooTools, Prototype.js, Sugar, Zone.js).
    var apply = Reflect.apply;
    var construct = Reflect.construct;
    var describe = Object.getOwnPropertyDescriptor;
    var define = Object.defineProperty;
    var keysOf = Object.keys;
    var getProto = Object.getPrototypeOf;
    var objectProto = Object.prototype;
    var isArray = Array.isArray;
    var shift = [].shift;
    var nativeStringify = JSON.stringify;
    var Str = String;
    var DateC = Date;
    var ErrorC = Error;
    var NodeC = Node;
    var MapC = Map;
    var SetC = Set;
    var UrlC = URL;
    var RequestC = win.Request;
    var HeadersC = win.Headers;
    // (Not `Image`: Chromium builds that constructor on its first read, ~0.5 ms of every page load,
    // and only the failure report needs an image.)
    var createElement = doc.createElement;
    var encode = encodeURIComponent;
    var config = JSON.parse(doc.currentScript.getAttribute(__CONFIG_ATTR__));
    var ownPrefix = config.prefix + '/';
    /** @type {Array<[AgentEntry, number]>} */
    var queue = [];
    // 16 hex digits. (Math.random, not crypto: the id names the page load and guards nothing, and
    // crypto's first use costs a page load ~0.2 ms.)
    var clientId = '';
    while (clientId.length < 16) clientId += ((Math.random() * 65536) | 65536).toString(16).slice(1);
    // The built-ins the wasm glue calls: a global, `Owner.name` (a static function, bound to its
    // owner) or `Owner.prototype.name` (a method, unbound). scripts/rename-glue.mjs makes the glue
    // read them from `p` instead of the page's globals, and fails the build when the glue uses a
    // global this list does not name, or the list names one the glue does not use.
    var KEPT =
        'AbortController Array.isArray Array.of Array.prototype.indexOf Array.prototype.push BroadcastChannel ' +
        'Array.prototype.slice DataView Date.now Element ' +
        'Error FinalizationRegistry Function.prototype.toString JSON.stringify Math.random Node Object.assign ' +
        'Object.getOwnPropertyDescriptor Object.getPrototypeOf Object.is Object.prototype Promise ' +
        'Promise.resolve Reflect.apply Reflect.construct Reflect.get Reflect.set Request ' +
        'Response Set TextDecoder TextDecoder.prototype.decode TextEncoder TextEncoder.prototype.encode ' +
        'TextEncoder.prototype.encodeInto URL Uint8Array WeakMap WeakRef WebAssembly.Instance WebAssembly.Module ' +
        'WebAssembly.instantiate WebAssembly.instantiateStreaming Window addEventListener clearTimeout ' +
        'console.warn encodeURIComponent fetch navigator.locks navigator.sendBeacon queueMicrotask setInterval ' +
        'setTimeout';
    var kept = {};
    KEPT.split(' ').forEach(function (path) {
        var owner = win,
            names = path.split('.'),
            last = names.pop(),
            v;
        try {
            names.forEach(function (name) {
                owner = owner[name];
            });
            v = owner[last];
            kept[path] = typeof v == 'function' && /^[a-z]/.test(last) && names.pop() != 'prototype' ? v.bind(owner) : v;
        } catch (ignored) {}
    });
    kept['JSON.stringify'] = stringify;
    /** @type {BrowserAgent} */
    var agent = (win[__GLOBAL__] = {
        __F_CFG__: config,
        __F_CLIENT_ID__: clientId,
        __F_QUEUE__: queue,
        __F_DROPPED__: 0,
        s: 0,
        __F_INFLIGHT__: 0,
        __F_ORIGINALS__: {},
        __F_PRISTINE__: kept,
        __F_HANDLER__: 0,
        __F_STAMP__: emit,
        b: 0,
    });
    var originals = agent.__F_ORIGINALS__;
    var now = Date.now;
    var pageTimeout = win.setTimeout;
    var pageInterval = win.setInterval;
    var pageFrame = win.requestAnimationFrame;
    var pageFetch = win.fetch;
    // The XMLHttpRequest constructor, then (where XHR is wrapped below) its prototype.
    /** @type {any} */
    var xhrProto = win.XMLHttpRequest;
    // `location.href` is read again only when `document.URL` changed (it is the slower of the two).
    var seenUrl, pageHref;
    // The URL of the last navigation entry, so popstate/hashchange to the same URL log nothing.
    var navHref = loc.href;
    var pageOpen, pageSend;
    // The directive of the page's Content-Security-Policy that last refused something (named when
    // the client cannot start).
    var refused;

    // JSON.stringify that ignores the toJSON methods pages add to built-in prototypes (Prototype.js's
    // Array#toJSON wrote arrays as strings): every object is written as itself, dates as dates.
    function stringify(v) {
        return nativeStringify(v, function (k, json) {
            var own = this[k];
            return own && typeof own == 'object' && !(own instanceof DateC) ? own : json;
        });
    }

    /**
     * A request of the page started (+1) or ended (-1).
     * @param {number} n
     */
    function inflight(n) {
        agent.__F_INFLIGHT__ += n;
        agent.__F_LAST_ACTIVITY__ = now();
    }

    /**
     * Stamps `entry` (time, page, client id, sequence number).
     * @param {AgentEntry} entry
     */
    function stamp(entry) {
        var url = doc.URL;
        if (url !== seenUrl) {
            seenUrl = url;
            pageHref = loc.href;
        }
        entry.t = now();
        entry.page = pageHref;
        if (!entry.url) entry.url = pageHref;
        entry.clientId = clientId;
        entry.seq = ++agent.s;
    }

    /**
     * Stamps `entry` (unless it was stamped before: a failed fetch's, when its response came) and
     * hands it to the client's hook, or queues it until the client runs. `kind` carries the bits
     * __KIND_URGENT__ (send at once) and __KIND_NAV__ (a navigation).
     * @param {AgentEntry} entry
     * @param {number} [kind]
     */
    function emit(entry, kind) {
        if (agent.b) return;
        try {
            if (!entry.seq) stamp(entry);
            kind |= 0;
            if (agent.__F_HANDLER__) agent.__F_HANDLER__(entry, kind);
            // (An index write, not push, which a page may have replaced; the assignment's value, an
            // array, is always truthy: it is there for the length test after it.)
            // eslint-disable-next-line no-constant-binary-expression -- the write then the test, in one condition
            else if ((queue[queue.length] = [entry, kind]) && queue.length > 500) {
                apply(shift, queue, []);
                agent.__F_DROPPED__++;
            }
        } catch (ignored) {}
    }

    /**
     * String(v), for values whose conversion throws (revoked proxies, hostile toString).
     * @param {unknown} v
     * @returns {string}
     */
    function str(v) {
        try {
            return Str(v);
        } catch (ignored) {
            return '[unprintable]';
        }
    }

    /**
     * v[name] when it is a string; reading it may throw (a getter), which gives undefined.
     * @param {any} v
     * @param {string} name
     * @returns {string | undefined}
     */
    function stringProp(v, name) {
        try {
            name = v[name];
            return typeof name == 'string' ? name : void 0;
        } catch (ignored) {}
    }

    // `Name: message` of an error-like value.
    function errorTitle(v) {
        var name = stringProp(v, 'name');
        var message = stringProp(v, 'message');
        return (name == null ? 'Error' : name) + (message ? ': ' + message : '');
    }

    // The stack of an error-like value, or its title when it has none, then its `cause` chain
    // (`Caused by: …`, at most 5 deep).
    function errorStack(v) {
        var out = stringProp(v, 'stack') || errorTitle(v), depth = 0;
        try {
            while (depth++ < 5 && (v = v.cause) != null) {
                out += '\nCaused by: ' + (isErrorLike(v) ? stringProp(v, 'stack') || errorTitle(v) : str(v));
            }
        } catch (ignored) {}
        return out;
    }

    // Error-like: has a string stack and message (errors from another realm, DOMException…).
    function isErrorLike(v) {
        return stringProp(v, 'stack') != null && stringProp(v, 'message') != null;
    }

    // Serializes a console argument to bounded JSON, at call time: strings inside cut at 300 chars,
    // depth 4, 30 items per level (then `"… N more"`), ~2,000 characters in all (then `…`), cycles as
    // "[Circular]", accessors as "[Getter]" (never run: that could change the page), items that
    // throw as "[Throws]". The top-level value is written bare when it is a string-like (an error's
    // stack, a node's description).
    function serialize(value) {
        var out = '';
        var path = []; // the objects being written, for cycle detection
        function text(s, bare) {
            out += bare ? s : nativeStringify(s);
        }
        // Kinds of object, in the order they are tested.
        var ERROR = 7, NODE = 8, DATE = 9, MAP = 10, SET = 11, ARRAY = 12, OBJECT = 13;
        function write(v, depth, bare) {
            var type = typeof v, i, count, kind, keys, h, c;
            if (v == null) return (out += v === null ? 'null' : 'undefined');
            if (type == 'boolean' || type == 'number') return (out += v);
            if (type == 'bigint') return (out += v + 'n');
            if (type == 'string') return text(v.length > 300 ? v.slice(0, 300) + '\u2026' : v, bare);
            if (type == 'symbol') return text(str(v), bare);
            if (type == 'function') return text('[Function: ' + (stringProp(v, 'name') || 'anonymous') + ']', bare);
            for (i = 0; i < path.length; i++) if (path[i] === v) return (out += '"[Circular]"');
            try {
                kind =
                    v instanceof ErrorC ? ERROR
                    : v instanceof NodeC ? NODE
                    : v instanceof DateC ? DATE
                    : v instanceof MapC ? MAP
                    : v instanceof SetC ? SET
                    : isArray(v) ? ARRAY
                    : OBJECT;
                if (kind == OBJECT && isErrorLike(v)) kind = ERROR;
                if (kind == ERROR) return text(bare ? errorStack(v) : errorTitle(v), bare);
                if (kind == NODE) {
                    h = v.nodeName;
                    if (v.nodeType == 1) {
                        h = '<' + h.toLowerCase();
                        if (v.id) h += '#' + v.id;
                        keys = (v.getAttribute('class') || '').split(/\s+/);
                        for (i = count = 0; i < keys.length && count < 5; i++) if (keys[i]) h += '.' + keys[i], count++;
                        h += '>';
                    } else if (v.nodeType == 3 || v.nodeType == 8) {
                        h += ' "';
                        i = 0;
                        for (c of v.textContent.trim()) {
                            if (i++ == 60) break;
                            h += c;
                        }
                        h += '"';
                    }
                    return text(h, bare);
                }
                if (kind == DATE) return text(isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString(), bare);
                if (kind == MAP || kind == SET) return text((kind == MAP ? '[Map(' : '[Set(') + str(v.size) + ')]', bare);
                if (depth > 3) return (out += kind == ARRAY ? '"[Array]"' : '"[Object]"');
                if (kind == OBJECT) {
                    keys = keysOf(v);
                    // A class's instance is named as the browser's console names it: `Order {"id":1}`
                    // (at the top level only, so what is inside stays JSON).
                    h = getProto(v);
                    h = h && h !== objectProto && stringProp(h.constructor, 'name');
                    if (bare && h) out += h + ' ';
                }
            } catch (e) {
                return (out += '"[Object]"');
            }
            path[path.length] = v;
            count = keys ? keys.length : v.length;
            out += keys ? '{' : '[';
            for (i = 0; i < count && i < 30; i++) {
                if (i) out += ',';
                if (out.length > 2e3) {
                    out += '\u2026';
                    break;
                }
                if (keys) out += nativeStringify(keys[i]) + ':';
                try {
                    // An accessor is named, never called.
                    if (keys && (h = describe(v, keys[i])) && !('value' in h)) {
                        out += h.get ? (h.set ? '"[Getter/Setter]"' : '"[Getter]"') : '"[Setter]"';
                        continue;
                    }
                    // (`h`: the descriptor read above, when there are keys.)
                    h = keys ? (h ? /** @type {PropertyDescriptor} */ (h).value : v[keys[i]]) : v[i];
                } catch (e) {
                    out += '"[Throws]"';
                    continue;
                }
                write(h, depth + 1);
            }
            if (count > 30 && out.length <= 2e3) {
                out += keys ? ',"\u2026":"' + (count - 30) + ' more"' : ',"\u2026 ' + (count - 30) + ' more"';
            }
            path.length--;
            out += keys ? '}' : ']';
        }
        try {
            write(value, 0, 1);
        } catch (e) {
            out += '"[Throws]"';
        }
        return out;
    }

    // A request of ours (logs, polls, results, heartbeats): same origin, under our prefix or the
    // probe path. They are never logged and never count as the page's network activity. The URL is
    // parsed only when it mentions one of them (most requests do not).
    function isOwnRequest(url) {
        if (url.indexOf(ownPrefix) < 0 && url.indexOf(__PROBE_PATH__) < 0) return 0;
        try {
            url = new UrlC(url, loc.href);
        } catch (ignored) {
            return 0;
        }
        return url.origin == loc.origin && (url.pathname.indexOf(ownPrefix) == 0 || url.pathname == __PROBE_PATH__);
    }
    // Requests that get no entry: ours, and `data:` URLs, which the browser decodes in place (no
    // request leaves the page; Shoelace reads each icon's SVG from one, tens per page, each entry
    // the whole URL).
    function untracked(url) {
        return /^\s*data:/i.test(url) || isOwnRequest(url);
    }

    // A navigation inside the page; `onlyIfMoved` for events that fire without a URL change.
    function navigated(via, onlyIfMoved) {
        var href = loc.href;
        if (!onlyIfMoved || href != navHref) {
            navHref = href;
            emit({ type: __NAVIGATION__, via: via }, __KIND_NAV__);
        }
    }

    // Runs `f` (code that may touch page getters) with captures switched off.
    function quietly(f) {
        if (!agent.b) {
            agent.b = 1;
            try {
                f();
            } catch (ignored) {}
            agent.b = 0;
        }
    }

    // The methods wrapped, and the level each records at; assert, count, time/timeLog/timeEnd,
    // dir, table and trace record what the browser's console prints for them.
    var METHODS = {
        log: 'log',
        info: 'info',
        warn: 'warn',
        error: 'error',
        debug: 'debug',
        assert: 'error',
        count: 'info',
        time: 0,
        timeLog: 'info',
        timeEnd: 'info',
        dir: 'log',
        table: 'log',
        trace: 'log',
    };
    var inside = 0;
    var counts = {};
    var timers = {};
    var NAMES = keysOf(METHODS);
    NAMES.forEach(function (name) {
        originals[name] = con[name];
    });
    // A console argument as text: strings as they are (cut at 4,000), objects as bounded JSON.
    function argText(v) {
        var type = typeof v;
        return type == 'string' ? (v.length > 4e3 ? v.slice(0, 4e3) : v)
            : (v && type == 'object') || type == 'function' ? serialize(v)
            : type == 'bigint' ? v + 'n'
            : str(v);
    }
    // The texts a console call records: a first string's %s %d %i %f %o %O %c substituted with the
    // arguments after it as the console does (%c's CSS dropped, %% a percent sign), the rest after.
    function texts(args, from, prefix) {
        var out = prefix ? [prefix] : [], i = from, first = args[i];
        if (typeof first == 'string' && first.indexOf('%') >= 0) {
            i++;
            out[out.length] = first.replace(/%([sdifoOc%])/g, function (all, c) {
                if (c == '%') return '%';
                if (i >= args.length) return all;
                var v = args[i++];
                return c == 'c' ? ''
                    : c == 'd' || c == 'i' ? (typeof v == 'symbol' ? 'NaN' : str(parseInt(v, 10)))
                    : c == 'f' ? (typeof v == 'symbol' ? 'NaN' : str(parseFloat(v)))
                    : argText(v);
            });
        }
        for (; i < args.length; i++) out[out.length] = argText(args[i]);
        return out;
    }
    // console.table's grid as text, as the console draws it: a header row ("(index)", the items'
    // keys or the columns asked for, "Value" for items that are no objects), then one row per item
    // (at most 30, then "… N more"), at most 20 columns, cells cut at 40 characters (strings
    // quoted, objects as bounded JSON, accessors "(...)": never run), columns padded and joined with
    // " | ". Data that is no object is logged as log logs it.
    function table(args) {
        var data = args[0], cols = [], grid = [], widths = [], lines = [], values, keys, n, i, j, d, item, row;
        if (!data || typeof data != 'object') return texts(args, 0);
        keys = isArray(data) ? 0 : keysOf(data);
        n = keys ? /** @type {string[]} */ (keys).length : data.length;
        function cut(v) {
            return v.length > 40 ? v.slice(0, 39) + '\u2026' : v;
        }
        function cell(o, k) {
            d = describe(o, k);
            return !d ? '' : !('value' in d) ? '(...)' : cut(typeof (d = d.value) == 'string' ? "'" + d + "'" : argText(d));
        }
        function itemAt(i) {
            return (d = describe(data, keys ? keys[i] : i)) && d.value;
        }
        for (i = 0; i < n && i < 30; i++) {
            item = itemAt(i);
            if (item && typeof item == 'object') {
                keysOf(item).forEach(function (k) {
                    if (cols.indexOf(k) < 0 && cols.length < 20) cols[cols.length] = k;
                });
            } else values = 1;
        }
        if (isArray(args[1])) cols = args[1].slice(0, 20).map(str);
        grid[0] = ['(index)'].concat(cols, values ? ['Value'] : []);
        for (i = 0; i < n && i < 30; i++) {
            item = itemAt(i);
            row = grid[i + 1] = [cut(keys ? keys[i] : i + '')];
            for (j = 0; j < cols.length; j++) row[j + 1] = item && typeof item == 'object' ? cell(item, cols[j]) : '';
            if (values) row[j + 1] = item && typeof item == 'object' ? '' : cell(data, keys ? keys[i] : i);
        }
        grid.forEach(function (row) {
            row.forEach(function (c, j) {
                if (!(widths[j] >= c.length)) widths[j] = c.length;
            });
        });
        grid.forEach(function (row) {
            lines[lines.length] = row
                .map(function (c, j) {
                    return c + ' '.repeat(widths[j] - c.length);
                })
                .join(' | ')
                .replace(/ +$/, '');
        });
        if (n > 30) lines[lines.length] = '\u2026 ' + (n - 30) + ' more';
        return [lines.join('\n')];
    }
    // What one call of `method` records (its texts, or 0 for nothing), as the console prints it.
    function record(method, args) {
        var label, t;
        if (method == 'table') return table(args);
        if (method == 'assert') return args[0] ? 0 : texts(args, 1, 'Assertion failed:');
        if (method == 'trace') {
            t = texts(args, 0, 'console.trace');
            t[t.length] = '\n' + stringProp(new ErrorC(), 'stack').replace(/^.*\n.*\n.*\n/, '');
            return t;
        }
        if (method != 'count' && method.slice(0, 4) != 'time') return texts(args, 0);
        label = args[0] === void 0 ? 'default' : str(args[0]);
        if (method == 'count') return [label + ': ' + (counts[label] = (counts[label] || 0) + 1)];
        if (method == 'time') return (timers[label] = now()), 0;
        t = timers[label];
        if (method == 'timeEnd') delete timers[label];
        return t == null ? ["Timer '" + label + "' does not exist"] : texts(args, 1, label + ': ' + (now() - t) + ' ms');
    }
    // console.*: arguments serialized at call time (the page may change them right after). Each
    // method becomes an accessor: reading it gives the wrapper, assigning it (a page's own logger,
    // `console.log = function () {}` to silence it) replaces what the wrapper calls after recording,
    // so a page that reassigns a method, or `window.console` itself, is still captured. A method of
    // the page's that logs through the wrapper again is not recorded twice: `inside` is set while it
    // runs, and such a call goes straight to the browser's method.
    function hookConsole(c) {
        for (var i = 0; i < NAMES.length; i++) hookMethod(c, NAMES[i]);
    }
    function hookMethod(c, method) {
        var target = c[method];
        var level = METHODS[method];
        function wrapper() {
            var args = arguments, recorded;
            if (inside) return apply(originals[method], this, args);
            if (!agent.b) {
                agent.b = 1;
                try {
                    recorded = record(method, args);
                } catch (ignored) {}
                agent.b = 0;
                if (recorded) emit({ type: __CONSOLE__, level: level, args: recorded }, level == 'error' ? __KIND_URGENT__ : 0);
            }
            // The browser's own method never calls back: no guard needed.
            if (target === originals[method]) return apply(target, this, args);
            if (typeof target != 'function') return;
            inside = 1;
            try {
                return apply(target, this, args);
            } finally {
                inside = 0;
            }
        }
        if (target === void 0 && c !== con) return;
        try {
            define(c, method, {
                configurable: true,
                enumerable: true,
                get: function () {
                    return wrapper;
                },
                set: function (f) {
                    target = f;
                },
            });
        } catch (ignored) {}
    }
    hookConsole(con);
    try {
        define(win, 'console', {
            configurable: true,
            get: function () {
                return con;
            },
            set: function (c) {
                if (c && typeof c == 'object' && c !== con) hookConsole(c);
                con = c;
            },
        });
    } catch (ignored) {}

    win.addEventListener('error', function (event) {
        // A form of the agent's `evaluate` that did not parse (evaluate.js then tries the next).
        if (agent.__F_EVAL__ === 0) return;
        var entry = {
            type: __ERROR__,
            message: event.message,
            stack: '',
            source: event.filename,
            line: event.lineno,
            column: event.colno,
        };
        var thrown = event.error;
        quietly(function () {
            if (typeof entry.message != 'string') entry.message = str(thrown);
            if (thrown instanceof ErrorC || (thrown && typeof thrown == 'object' && isErrorLike(thrown))) {
                entry.stack = errorStack(thrown);
            } else if (thrown && typeof thrown == 'object') {
                entry.message = 'Uncaught ' + serialize(thrown);
            }
        });
        emit(entry, __KIND_URGENT__);
    });

    win.addEventListener('unhandledrejection', function (event) {
        var reason = event.reason;
        var entry = { type: __ERROR__, kind: 'unhandledrejection', message: '', stack: '' };
        quietly(function () {
            entry.message = stringProp(reason, 'message');
            if (entry.message == null) {
                entry.message = reason && typeof reason == 'object' ? serialize(reason) : str(reason);
            }
            entry.stack = stringProp(reason, 'stack') || '';
        });
        emit(entry, __KIND_URGENT__);
    });

    win.addEventListener('securitypolicyviolation', function (event) {
        refused = event.effectiveDirective;
    });

    ['pushState', 'replaceState'].forEach(function (method) {
        var original = hist[method];
        if (original) {
            hist[method] = function () {
                var result = apply(original, this, arguments);
                // A state change that keeps the URL (pushState(state, '', location.href)) is no navigation.
                navigated(method, 1);
                return result;
            };
        }
    });
    win.addEventListener('popstate', function () {
        navigated('popstate', 1);
    });
    win.addEventListener('hashchange', function () {
        navigated('hashchange', 1);
    });

    // What the page sets to run soon (a timer due within __SETTLE_MS__ ms, an animation frame): an
    // action waits for it before the next step, instead of a fixed pause.
    // After a hover (and a click whose pointer's arrival set one), also a timer due within
    // __HOVER_INTENT_MS__ ms: menus that open on hover wait that long for the pointer to stay
    // (Radix 100 ms, antd 150 ms); after typing, an autocomplete's delayed search (jQuery UI's
    // 300 ms).
    agent.__F_TIMERS_DUE__ = agent.__F_FRAMES__ = 0;
    agent.__F_HOVER_DUE__ = 0;
    if (pageTimeout) {
        win.setTimeout = function (f, ms) {
            // Only short timers count; the clock is read once. (Locals, not `ms`: assigning a
            // named parameter would change `arguments` in sloppy code.)
            var delay = +ms || 0,
                due = delay + now();
            if (delay <= __HOVER_INTENT_MS__ && due > agent.__F_HOVER_DUE__) agent.__F_HOVER_DUE__ = due;
            if (delay <= __SETTLE_MS__ && due > agent.__F_TIMERS_DUE__) agent.__F_TIMERS_DUE__ = due;
            return apply(pageTimeout, win, arguments);
        };
    }
    if (pageFrame) {
        win.requestAnimationFrame = function () {
            agent.__F_FRAMES__++;
            return apply(pageFrame, win, arguments);
        };
    }
    // alert/confirm/prompt block the page, and every batch after it, until a person answers.
    // While an agent's batch runs (or one of its actions settles) the hands answer them by the
    // step's policy (`dh`, commands/dialogs.rs; OK until they are loaded). Outside a batch, while an
    // agent is attached (`at`), one the page opens on its own (not in a person's event, nor in the
    // seconds after their input: transient user activation) is answered OK / the prompt's default,
    // logged, and kept (`dl`) for the page's next batch. A person's own get the real dialog.
    var settling = 0;
    var outside = (agent.__F_DIALOGS_OUTSIDE__ = []);
    ['alert', 'confirm', 'prompt'].forEach(function (name) {
        var original = win[name];
        if (typeof original != 'function') return;
        win[name] = function (message, value) {
            var ev = win.event,
                busy = settling || agent.__F_BUSY__,
                answer = name == 'alert' ? void 0 : name == 'confirm' || (value == null ? '' : str(value)),
                entry = { type: __DIALOG__, kind: name, message: message == null ? '' : str(message), answer: answer };
            if (busy && agent.__F_DIALOG_HANDLER__) return agent.__F_DIALOG_HANDLER__(entry);
            if (!busy && (!agent.__F_ATTACHED__ || (ev ? ev.isTrusted : (navigator.userActivation || {}).isActive)))
                return apply(original, win, arguments);
            if (!busy && outside.length < 10) (entry.outside = 1), (outside[outside.length] = entry);
            emit(entry, __KIND_URGENT__);
            return answer;
        };
    });
    // The page's `beforeunload` handlers, after a navigation of the agent's that ran them once
    // already (`bu`, commands/dialogs.rs): this listener is the first, so it can stop them.
    win.addEventListener('beforeunload', function (e) {
        if (agent.__F_SKIP_BEFOREUNLOAD__) e.stopImmediatePropagation();
    });
    // Whether a fade, slide or collapse is under way (see moving's use in settle below).
    var MOVES = /^(opacity|transform|visibility|height|max-height)$/;
    function moving() {
        try {
            var list = doc.getAnimations(),
                i,
                a,
                // A page's jQuery (1.x–3.x): its running animations are `jQuery.timers`.
                jq = /** @type {any} */ (win).jQuery;
            for (i = 0; i < list.length; i++) {
                // A CSS transition's or animation's, or a script's (Web Animations).
                a = /** @type {Animation & Partial<CSSTransition & CSSAnimation>} */ (list[i]);
                if (
                    a.playState == 'running' &&
                    // (A scroll-driven animation's end is a CSSNumericValue, a percentage, which
                    // compares false: it is never waited for.)
                    /** @type {number} */ (a.effect.getComputedTiming().endTime) < 1 / 0 &&
                    (a.transitionProperty ? MOVES.test(a.transitionProperty) : a.animationName)
                )
                    return 1;
            }
            return jq && jq.timers && jq.timers.length > 0;
        } catch (e) {
            return 0;
        }
    }
    // settle(frames, atLeast): resolves once the page's short timers due since have run and, when
    // it asked for a frame since `frames` (the count before the action), that frame has run; after
    // __SETTLE_MS__ ms at most (the first frame it asked for: __SETTLE_FRAME_MS__, as a browser busy
    // or starting its frames may take longer than one), `atLeast` ms at least (the visible
    // cursor's pause), one task at least; then a fade it started (moving()) to its end. After a
    // hover or typing (`intent` set), its timers due within __HOVER_INTENT_MS__ ms are waited for
    // too.
    agent.__F_SETTLE__ = function (frames, atLeast, intent) {
        // `after`: when the last round of ours was due. A page timer due no later ran before it
        // (timers run in the order they are due); one due later is waited for.
        var start = now(),
            after = start,
            waited = 0,
            faded = 0;
        settling++;
        return new kept.Promise(function (done) {
            // Once: a second call must not take another action's count away (a count below 0
            // would answer the dialogs of a person's own clicks).
            var open = 1;
            function resolve() {
                if (open) {
                    open = 0;
                    settling--;
                    done();
                }
            }
            function step() {
                var spent = now() - start,
                    due = intent && agent.__F_HOVER_DUE__ > agent.__F_TIMERS_DUE__ ? agent.__F_HOVER_DUE__ : agent.__F_TIMERS_DUE__,
                    left = (intent ? __HOVER_INTENT_MS__ : __SETTLE_MS__) - spent,
                    once = 0;
                if (spent < atLeast) return apply(pageTimeout, win, [step, atLeast - spent]);
                if (pageFrame && agent.__F_FRAMES__ > frames && (!waited || left > 0)) {
                    // Ours (asked for after theirs) runs after their callback; what it asks for again
                    // (an animation loop) is waited for only while time is left.
                    frames = agent.__F_FRAMES__;
                    var next = function () {
                        if (!once++) step();
                    };
                    apply(pageFrame, win, [next]);
                    apply(pageTimeout, win, [next, waited ? left : __SETTLE_FRAME_MS__]);
                    return (waited = 1);
                }
                if (left > 0 && due >= after) {
                    after = due + 1;
                    due = after - now();
                    return apply(pageTimeout, win, [step, due < left ? due : left]);
                }
                // Then a fade, slide or collapse the action started, to its end (a Bootstrap modal
                // drops a click that lands mid-fade): __SETTLE_ANIMATION_MS__ ms at most.
                if (spent < __SETTLE_ANIMATION_MS__ && moving()) {
                    faded = 1;
                    return apply(pageTimeout, win, [step, 16]);
                }
                // Between frames a script reads an animation's time off the clock, so the poll may
                // see a fade end before the frame that ends it has sent its `transitionend` (a busy
                // machine's frames come late): one more frame (or __SETTLE_FRAME_MS__ ms in a tab
                // without frames) lets the page's handler for it run.
                if (faded == 1 && pageFrame) {
                    faded = 2;
                    var ended = function () {
                        if (!once++) apply(pageTimeout, win, [step]);
                    };
                    apply(pageFrame, win, [ended]);
                    return apply(pageTimeout, win, [ended, __SETTLE_FRAME_MS__]);
                }
                resolve();
            }
            apply(pageTimeout, win, [step]);
        });
    };

    // The page's last 50 requests and socket events, kept by reference for the hands' `network`
    // step, which reads and bounds them when an agent asks (nothing here reads a body). An evicted
    // response copy is cancelled, so it stops buffering.
    /** @type {any} */
    var net = [];
    net.i = 0;
    /** @type {any} */ (agent).nb = net;
    function keep(record) {
        try {
            net[net.i].r.body.cancel().catch(str);
        } catch (ignored) {}
        net[net.i] = record;
        net.i = (net.i + 1) % 50;
    }
    // Bytes of `s` as UTF-8.
    function bytes(s) {
        for (var n = s.length, i = 0, c; i < s.length; i++) {
            c = s.charCodeAt(i);
            n += c > 127 ? (c > 2047 && (c < 55296 || c > 57343) ? 2 : 1) : 0;
        }
        return n;
    }
    // A request body's type (the page's Content-Type, else what the browser sends for it) and
    // size, onto `entry` (`reqType`, `reqSize`) where known.
    function requestInfo(entry, body, type) {
        try {
            var size = typeof body == 'string' ? bytes(body) : body && (body.byteLength != null ? body.byteLength : body.size);
            type = type || (typeof body == 'string' ? 'text/plain;charset=UTF-8' : body && body.type);
            if (type) entry.reqType = str(type);
            if (size >= 0) entry.reqSize = size;
            // What an agent's batch sent, or a failed request (a frame's, a person's), shown on its
            // line (the rest: the `network` step).
            if ((agent.__F_BUSY__ || !entry.ok) && typeof body == 'string') entry.reqBody = body.slice(0, 300);
        } catch (ignored) {}
    }

    // Whether an answer's text is kept on its entry (`resBody`, first 300 chars): what the server
    // answered a change an agent's batch made (not a GET: the page shows what it read), when it is
    // text, so the batch's answer says what was stored without a `network` step.
    function answerShown(method, resType) {
        return agent.__F_BUSY__ && method != 'GET' && /json|text/.test(resType);
    }

    // An answer's text on its entry: an error's body (first 1,000 chars), else what a change was
    // answered (`resBody`, first 300); its size when no header said it.
    function keepAnswer(entry, text) {
        if (entry.ok) entry.resBody = text.slice(0, 300);
        else entry.body = text.slice(0, 1e3);
        if (entry.resSize == null) entry.resSize = bytes(text);
    }

    // fetch: one entry when it settles, stamped then; an error answer's body (first 1,000 chars) is
    // read from a clone after that, and the entry sent once it is read; so is a changing request's
    // answer while an agent's batch runs.
    if (pageFetch) {
        originals.__F_ORIGINAL_FETCH__ = pageFetch;
        win.fetch = function (input, init) {
            var args = arguments, started = now(), url, method, pending, body, type;
            try {
                var isRequest = RequestC && input instanceof RequestC;
                url = isRequest ? /** @type {Request} */ (input).url : Str(input);
                method = Str((init && init.method) || (isRequest ? /** @type {Request} */ (input).method : 'GET')).toUpperCase();
            } catch (ignored) {
                url = '';
            }
            if (!url || untracked(url)) return apply(pageFetch, this, args);
            // The request's body and type, by reference (a Request's body: a copy, taken before
            // the browser reads it).
            try {
                body = init && init.body;
                type = init && init.headers && new HeadersC(init.headers).get('content-type');
                if (isRequest) {
                    var request = /** @type {Request} */ (input);
                    type = type || request.headers.get('content-type');
                    if (body == null && request.body) body = request.clone();
                }
            } catch (ignored) {}
            inflight(1);
            try {
                pending = apply(pageFetch, this, args);
            } catch (e) {
                inflight(-1);
                throw e;
            }
            // `copy`: the answer's copy the hands read when asked; a failed answer's is read now,
            // its text kept instead.
            function done(entry, copy) {
                entry.type = __NETWORK__;
                entry.method = method;
                entry.url = url;
                entry.duration = now() - started;
                entry.via = 'fetch';
                requestInfo(entry, body, type);
                stamp(entry);
                function send() {
                    inflight(-1);
                    emit(entry);
                }
                var record = { e: entry, q: body, r: copy };
                keep(record);
                if (!copy || (entry.ok && !answerShown(method, entry.resType))) return send();
                record.r = copy.text();
                record.r.then(function (text) {
                    keepAnswer(entry, text);
                }).then(send, send);
            }
            return pending.then(
                function (response) {
                    try {
                        var headers = response.headers,
                            resType = headers.get('content-type'),
                            length = headers.get('content-length'),
                            entry = { status: response.status, statusText: response.statusText, ok: response.ok };
                        if (resType) entry.resType = resType;
                        if (length) entry.resSize = +length;
                        // No copy of a stream (it would buffer while it lasts) nor of a big answer.
                        done(entry, !/stream|ndjson|video|audio/.test(resType) && !(length > 1e6) && response.clone());
                    } catch (ignored) {}
                    return response;
                },
                function (e) {
                    var entry = { ok: false, error: str((e && e.message) || e) };
                    // An aborted request is told apart from a network error.
                    if (stringProp(e, 'name') == 'AbortError') (entry.error = 'aborted'), (entry.aborted = true);
                    done(entry);
                    throw e;
                }
            );
        };
    }

    // XHR: method and URL noted at open(), one entry at loadend.
    if (xhrProto) {
        xhrProto = xhrProto.prototype;
        pageOpen = originals.open = xhrProto.open;
        pageSend = originals.send = xhrProto.send;
        var pageHeader = (originals.setRequestHeader = xhrProto.setRequestHeader);
        xhrProto.open = function (method, url) {
            try {
                this.__ba = [Str(method).toUpperCase(), Str(url)];
            } catch (ignored) {}
            return apply(pageOpen, this, arguments);
        };
        // The request's Content-Type, noted for its entry.
        xhrProto.setRequestHeader = function (name) {
            try {
                if (/^content-type$/i.test(name)) this.__ba[2] = arguments[1];
            } catch (ignored) {}
            return apply(pageHeader, this, arguments);
        };
        xhrProto.send = function () {
            var xhr = this, request = xhr.__ba, started = now(), body = arguments[0], ended, aborted;
            // Counts the end once, whether send() threw or loadend fired.
            function end() {
                return !ended && ((ended = 1), inflight(-1), 1);
            }
            if (!request || untracked(request[1])) return apply(pageSend, xhr, arguments);
            inflight(1);
            // abort() also ends with status 0: told apart from a network error.
            xhr.addEventListener('abort', function () {
                aborted = 1;
            });
            xhr.addEventListener('loadend', function () {
                if (end()) {
                    var status = xhr.status;
                    var entry = {
                        type: __NETWORK__,
                        method: request[0],
                        url: request[1],
                        status: status,
                        statusText: xhr.statusText,
                        duration: now() - started,
                        ok: status > 199 && status < 300,
                        via: 'xhr',
                    };
                    var record = { e: entry, q: body };
                    if (!status) entry.error = aborted ? 'aborted' : 'network error';
                    requestInfo(entry, body, request[2]);
                    try {
                        entry.resType = xhr.getResponseHeader('content-type') || void 0;
                        entry.resSize = +xhr.getResponseHeader('content-length') || void 0;
                        if (status) record.r = xhr.response;
                    } catch (ignored) {}
                    if (aborted) entry.aborted = true;
                    else if (!entry.ok || answerShown(request[0], entry.resType)) {
                        try {
                            keepAnswer(entry, xhr.responseText);
                        } catch (ignored) {}
                    }
                    emit(entry);
                    keep(record);
                }
            });
            try {
                return apply(pageSend, xhr, arguments);
            } catch (e) {
                end();
                throw e;
            }
        };
    }

    // WebSockets: an entry when one opens, closes or fails; its last 20 messages each way, by
    // reference (`m`, a ring at m.i of [sent, time, data]; m.c: counts received, sent; m.u: its
    // URL; m.s: its entries' seqs), for the hands' `network` step; the last 10 sockets in nb.w.
    net.w = [];
    net.n = 0;
    var PageSocket = win.WebSocket, pageSocketSend;
    if (PageSocket && win.Proxy) {
        pageSocketSend = PageSocket.prototype.send;
        PageSocket.prototype.send = function (data) {
            note(/** @type {any} */ (this).__ba, 1, data);
            return apply(pageSocketSend, this, arguments);
        };
        win.WebSocket = new win.Proxy(PageSocket, {
            construct: function (target, args, newTarget) {
                /** @type {any} */
                var ws = construct(target, args, newTarget);
                try {
                    /** @type {any} */
                    var messages = (ws.__ba = []);
                    var url = ws.url,
                        counts = [0, 0];
                    messages.i = 0;
                    messages.c = counts;
                    messages.s = [];
                    messages.u = url;
                    net.w[net.n++ % 10] = messages;
                    var log = function (event, level, text, more) {
                        var entry = more || {};
                        entry.type = __WEBSOCKET__;
                        entry.event = event;
                        entry.level = level;
                        entry.url = url;
                        entry.text = 'WebSocket ' + url + ' ' + text;
                        emit(entry, level == 'error' ? __KIND_URGENT__ : 0);
                        messages.s[messages.s.length] = entry.seq;
                        keep({ e: entry, m: messages });
                    };
                    ws.addEventListener('open', function () {
                        log('open', 'info', 'open');
                    });
                    ws.addEventListener('message', function (e) {
                        note(messages, 0, e.data);
                    });
                    ws.addEventListener('error', function () {
                        log('error', 'error', 'failed');
                    });
                    ws.addEventListener('close', function (e) {
                        var code = e.code, clean = code == 1000 || code == 1001 || code == 1005;
                        log('close', clean ? 'info' : 'warn', 'closed ' + code + (e.reason ? ' (' + e.reason + ')' : '') + ', ' + counts[1] + ' sent, ' + counts[0] + ' received', {
                            code: code,
                            reason: e.reason,
                            sent: counts[1],
                            received: counts[0],
                        });
                    });
                } catch (ignored) {}
                return ws;
            },
        });
    }
    // A socket's message: kept by reference in its ring, counted.
    function note(messages, sent, data) {
        if (messages) {
            messages.c[sent]++;
            messages[messages.i] = [sent, now(), data];
            messages.i = (messages.i + 1) % 20;
        }
    }

    // Our URLs are absolute from the page's own origin, never resolved against a <base> the page
    // adds (which could point at another origin); a sandboxed document (origin "null") keeps the path.
    function own(path) {
        return path.charAt(0) == '/' && loc.origin != 'null' ? loc.origin + path : path;
    }

    // Modules the client loads on first use (the screenshot capture), from our origin.
    agent.__F_LOAD__ = function (path) {
        return import(own(path));
    };

    // Notes mode, its code loaded on first use (`n`): the shortcut, the parent frame's `notes-…`
    // messages (read by the parent-frame listener below), and while it is on, the developer's input handed to it (`g`) before the page sees any: these
    // capture listeners are the first of the window's.
    var notes;
    agent.__F_NOTES__ = function (command, message) {
        notes =
            notes ||
            agent.__F_LOAD__(config.prefix + __ASSETS_DIR__ + __LAZY_NOTES__ + '-' + config.rev.slice(0, 12) + '.js');
        return notes.then(function (m) {
            return m.command(command, message);
        });
    };
    if (config.__F_CFG_NOTES__ !== false) {
        'keydown keyup keypress pointerdown pointerup pointermove pointercancel mousedown mouseup mousemove click dblclick auxclick contextmenu'
            .split(' ')
            .forEach(function (type) {
                win.addEventListener(
                    type,
                    /** @param {KeyboardEvent} e a keyboard or pointer event: its key fields are read for `keydown` only */
                    function (e) {
                        if (!e.isTrusted) return;
                        if (
                            type == 'keydown' &&
                            (config.__F_CFG_NOTES_KEY__ || __NOTES_DEFAULT_KEY__) ==
                                [e.ctrlKey && 'Control', e.altKey && 'Alt', e.shiftKey && 'Shift', e.metaKey && 'Meta', e.code]
                                    .filter(Boolean)
                                    .join('+')
                        ) {
                            e.preventDefault();
                            e.stopImmediatePropagation();
                            agent.__F_NOTES__('toggle').catch(Boolean);
                        } else if (agent.__F_GUARD__) agent.__F_GUARD__(e);
                    },
                    true
                );
            });
    }

    // The page's own tools (WebMCP, docs/page-tools.md). Where the browser has no model context, a
    // shim with its API (registerTool(tool, {signal}), unregisterTool, provideContext,
    // clearContext) exists before the page's scripts run and records what they register; the
    // hands list and call them when an agent asks. `r` counts changes (a browser's own context
    // says them with `toolchange`): the sensor sends it on its heartbeat once it is not 0, and
    // beats at once when it changes (`tb`), so pages that register no tool send nothing more.
    var tools = (agent.__F_TOOLS__ = /** @type {{r: number, m: any, c?: any}} */ ({ r: 0, m: Object.create(null) }));
    function toolsChanged() {
        tools.r++;
        if (agent.__F_TOOLS_BEAT__) agent.__F_TOOLS_BEAT__();
    }
    // (`win.navigator`: the bootstrap's unit tests run it without one.)
    var nav = win.navigator || /** @type {Navigator} */ ({});
    var context = doc.modelContext || nav.modelContext;
    if (context) {
        try {
            context.addEventListener('toolchange', toolsChanged);
        } catch (ignored) {}
    } else {
        context = tools.c = {
            registerTool: function (tool, options) {
                var name = tool && tool.name,
                    signal = options && options.signal;
                // (A name taken, or a signal aborted already: refused, as the draft says.)
                if (!name || tools.m[name] || (signal && signal.aborted)) return Promise.reject(new TypeError(name));
                tools.m[name] = tool;
                toolsChanged();
                if (signal)
                    signal.addEventListener('abort', function () {
                        if (tools.m[name] == tool) context.unregisterTool(name);
                    });
                return Promise.resolve();
            },
            unregisterTool: function (name) {
                if (tools.m[name]) {
                    delete tools.m[name];
                    toolsChanged();
                }
            },
            provideContext: function (options) {
                context.clearContext();
                for (var list = (options && options.tools) || [], i = 0; i < list.length; i++)
                    context.registerTool(list[i]).catch(Boolean);
            },
            clearContext: function () {
                tools.m = Object.create(null);
                toolsChanged();
            },
        };
        var property = { value: context, configurable: true };
        define(nav, 'modelContext', property);
        define(doc, 'modelContext', property);
    }


    // The client could not start (its glue or wasm did not load, or it threw while starting): the
    // page registers as `failed` with the error, in a heartbeat of its own every
    // __HEARTBEAT_INTERVAL_MS__ ms (through an <img> where the page's CSP refuses connections),
    // and what the page logs meanwhile still reaches the host. The host stores the error as an
    // `error` entry and names it to the agent instead of "No browser connected".
    var failed;
    agent.__F_FAIL__ = fail;
    function fail(e) {
        if (failed) return;
        failed = 1;
        // A client that threw while starting may have hooked in already: the queue takes the captures again.
        agent.__F_HANDLER__ = 0;
        var message = isErrorLike(e) ? errorTitle(e) : str(e);
        var stack = stringProp(e, 'stack') || '';
        function beat() {
            if (agent.__F_HANDLER__) return;
            var url =
                own(__PROBE_PATH__) +
                '?' + __P_CLIENT__ + '=' + clientId +
                '&' + __P_PAGE__ + '=' + encode(loc.href) +
                '&' + __P_TITLE__ + '=' + encode(doc.title) +
                '&' + __P_PHASE__ + '=failed' +
                '&' + __P_VISIBLE__ + '=' + (doc.hidden ? 0 : 1) +
                '&' + __P_REV__ + '=' + encode(config.rev) +
                '&' + __P_ERROR__ + '=' + encode(message.slice(0, 500)) +
                '&' + __P_STACK__ + '=' + encode(stack.slice(0, 1500));
            pageFetch(url, { headers: { [__KEY_HEADER__]: config.key }, cache: 'no-store' }).catch(function () {
                /** @type {HTMLImageElement} */ (apply(createElement, doc, ['img'])).src =
                    url + '&' + __P_KEY__ + '=' + encode(config.key);
            });
            if (queue.length) {
                for (var batch = [], i = 0; i < queue.length; i++) batch[i] = queue[i][0];
                queue.length = 0;
                pageFetch(own(config.prefix + __LOGS_PATH__), {
                    method: 'POST',
                    headers: { [__KEY_HEADER__]: config.key, 'content-type': 'application/json' },
                    body: stringify(batch),
                }).catch(function () {});
            }
        }
        // The CSP violation that caused it (a refused fetch only says "Failed to fetch") is
        // reported in a task of its own: the report waits for it.
        apply(pageTimeout, win, [
            function () {
                if (refused && message.indexOf('Content Security') < 0) {
                    message += " (the page's Content-Security-Policy refused " + refused + ')';
                }
                apply(originals.__F_ORIGINAL_WARN__, con, ['[browser-agent] client failed to start: ' + message]);
                beat();
                apply(pageInterval, win, [beat, __HEARTBEAT_INTERVAL_MS__]);
            },
            50,
        ]);
    }

    // The sensor (delivery, heartbeat, the command poll; it loads the hands, the wasm client, when an
    // agent acts) is a cached ES module named by the client revision. It starts after the page's
    // first frame, so loading and starting it never compete with the page's own parsing and first
    // paint; what the page does meanwhile waits in the queue. If it has not started
    // __START_TIMEOUT_MS__ ms later, it counts as failed.
    function startClient() {
        apply(pageTimeout, win, [
            function () {
                if (!agent.__F_HANDLER__) fail('the client did not start within ' + __START_TIMEOUT_MS__ / 1e3 + ' s');
            },
            __START_TIMEOUT_MS__,
        ]);
        agent.__F_LOAD__(config.prefix + __ASSETS_DIR__ + __SENSOR_ASSET__ + '-' + config.rev.slice(0, 12) + '.js').catch(fail);
    }
    // A frame callback runs just before a paint and a timeout set there runs after it; hidden
    // pages get no frames, so there the timeout alone starts the client.
    // (The timer and frame functions are the ones the page had before its scripts ran.)
    function afterFirstFrame() {
        if (doc.hidden) apply(pageTimeout, win, [startClient]);
        else
            apply(pageFrame, win, [
                function () {
                    apply(pageTimeout, win, [startClient]);
                },
            ]);
    }
    if (config.client) {
        if (doc.readyState == 'loading') doc.addEventListener('DOMContentLoaded', afterFirstFrame);
        else afterFirstFrame();
    }
})(window);
