// @ts-check
// The sensor: what every page runs once its first frame is painted (the inline bootstrap imports
// it as a cached, content-hashed ES module). It drains the bootstrap's capture queue and becomes its
// handler, adds clicks, delivers every entry to the host exactly once, reports the page with a
// heartbeat and its phase, keeps the one command poll the tabs of an origin share, and runs a batch
// by handing it to the hands (the wasm client: snapshot, targeting, actions, settle, cursor,
// screenshot, notes, evaluate), which it loads on the first batch, or while the page is idle when
// the host says an agent is attached. It never links code only the hands need.
//
// `scripts/build-client` fills in the placeholders (upper-case names between double underscores)
// from the Rust constants that own them and minifies it into
// `browser-agent-core/assets/client/sensor.js`.
//
// Built-ins are the ones the bootstrap kept before the page's scripts ran (`K(name)`, its `KEPT`
// list): the page may have replaced `fetch`, `setTimeout`, `JSON.stringify`… by now. For the same
// reason nothing here calls `push`, `call`, `apply` or `bind` (browser-tests' hostile pages).
//
// The global's shape, for `tsc` (scripts/js-check), is `BrowserAgent` in
// browser-agent-client/types/placeholders.d.ts.

const win = window;
const doc = document;
const agent = win[__GLOBAL__];
const kept = agent.__F_PRISTINE__;
/** @param {string} name a path of the bootstrap's `KEPT` list */
const K = (name) => kept[name];
const apply = K('Reflect.apply');
const now = K('Date.now');
const later = K('setTimeout');
const stringify = K('JSON.stringify');
const encode = K('encodeURIComponent');
const cfg = agent.__F_CFG__;
const key = cfg.__F_CFG_KEY__;
const prefix = cfg.__F_CFG_PREFIX__;
const rev = cfg.__F_CFG_REV__;
const clientId = agent.__F_CLIENT_ID__;

// Entries kept locally while the host is unreachable; the oldest go first beyond this.
const MAX_PENDING = 1000;
// Most entries in one request (halved on 413).
const BATCH_MAX = 200;
// Retry delays of log delivery (ms).
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 8000;
// Entries per beacon (a beacon's body is limited to 64 KiB in total).
const BEACON_CHUNK = 50;
// sessionStorage key remembering the revision we reloaded for (one reload per revision).
const RELOAD_KEY = '__browserAgentReload';
// Polls never start more often than this when the host answers at once (a host without
// long-polling): 0.2 requests/s at most.
const MIN_POLL_INTERVAL_MS = 5000;
// Retry delays of the command poll (ms), and attempts to deliver one batch's results.
const POLL_BACKOFF_MIN_MS = 1000;
const POLL_BACKOFF_MAX_MS = 10000;
const RESULT_ATTEMPTS = 3;

const sleep = (ms) => new Promise((done) => later(done, ms));

// ---- the client's own requests ------------------------------------------------------------------

// Our URLs are absolute from the page's own origin, never resolved against a <base> the page adds
// (which could point at another origin); a sandboxed document (origin "null") keeps the path.
function own(path) {
    const origin = location.origin;
    return path[0] == '/' && path[1] != '/' && origin && origin != 'null' ? origin + path : path;
}

// `fetch` as the page had it before any wrapper: never captured, never counted as the page's.
function send(path, init) {
    try {
        return apply(agent.__F_ORIGINALS__.__F_ORIGINAL_FETCH__ || K('fetch'), win, [own(path), init]);
    } catch (e) {
        return Promise.reject(e);
    }
}

// Request options: never from a cache, with the page key, and a JSON body when given.
function options(method, body) {
    const headers = { [__KEY_HEADER__]: key };
    const init = { method, cache: 'no-store', headers };
    if (body != null) {
        headers['content-type'] = 'application/json';
        init.body = body;
    }
    return init;
}

function query(url, params) {
    for (const name in params) url += (url.indexOf('?') < 0 ? '?' : '&') + name + '=' + encode(params[name]);
    return url;
}

function session(get, name, value) {
    try {
        const s = win.sessionStorage;
        return get ? s.getItem(name) : (s.setItem(name, value), true);
    } catch (ignored) {
        return get ? undefined : false;
    }
}

// This tab's id, kept in sessionStorage so the host can hand a batch's remaining steps over to the
// next page of the same tab; empty where storage is blocked.
// Read only once the host says a handover waits (`wantTab`), then kept: the first sessionStorage
// access of a page load is a synchronous trip out of the page, the largest part of what the sensor
// cost a page no agent touched.
let tab,
    wantTab = false;
function tabId() {
    if (tab !== undefined) return tab;
    let id = session(1, __TAB_STORAGE_KEY__);
    if (!id) {
        id = 't';
        for (let i = 0; i < 3; i++) id += ((K('Math.random')() * 1e9) | 0) + '';
        if (!session(0, __TAB_STORAGE_KEY__, id)) id = '';
    }
    return (tab = id && id + framePath());
}

// Where this page is among the tab's frames (`/0/1`; '' for the tab's page): a same-origin frame
// shares the tab's sessionStorage, and must not take the tab page's handover, nor the page a
// frame's. The hands' `net::tab_id` adds the same.
function framePath() {
    let path = '',
        /** @type {Window} */
        w = win;
    try {
        while (w != w.parent) {
            const frames = w.parent.frames;
            let i = 0;
            while (i < frames.length && frames[i] != w) i++;
            path = '/' + i + path;
            w = w.parent;
        }
    } catch (ignored) {}
    return path;
}

function warn(message) {
    try {
        apply(agent.__F_ORIGINALS__.__F_ORIGINAL_WARN__, console, ['[browser-agent] ' + message]);
    } catch (ignored) {}
}

// ---- delivery: batches to POST {prefix}/logs, exactly once ----------------------------------------

// Entries not yet confirmed by the host, oldest first; the first `inFlight` are in the request in
// flight. `epoch` is bumped when a beacon takes entries out from under that request.
/** @type {AgentEntry[]} */
const pending = [];
let dropped = 0,
    inFlight = 0,
    sending = false,
    epoch = 0,
    batchMax = BATCH_MAX,
    backoff = 0,
    timer = 0,
    dead = false,
    phase = 'hooked',
    // [error, stack] when the hands failed to load: the page then reports phase `failed`.
    failure,
    // The host answered a heartbeat once; the sensor gave up (see heartbeat).
    reached = false,
    stopped = false;

// `Name: message` of a thrown value.
const errorText = (e) => ((e && e.name ? e.name + ': ' : '') + ((e && e.message) || e + '')).slice(0, 500);

// Arms the flush timer to fire in `ms` (0: as soon as possible); an earlier timer stands.
function schedule(ms) {
    if (dead || (timer && ms)) return;
    if (timer) K('clearTimeout')(timer);
    timer = later(() => {
        timer = 0;
        flush();
    }, ms);
}

// A `dropped` entry when the local queue lost entries since the last report (it goes through the
// bootstrap's stamp, which hands it back to `record`).
function reportDrops() {
    if (!dropped) return;
    const count = dropped;
    dropped = 0;
    agent.__F_STAMP__({ [__FIELD_TYPE__]: __DROPPED__, [__FIELD_COUNT__]: count }, 0);
}

/**
 * Queues a stamped entry for the next batch; the running batch of the hands sees it too.
 * @param {AgentEntry} entry
 * @param {number} urgent non-zero: deliver at once
 */
function record(entry, urgent) {
    if (dead) return;
    if (agent.__F_TAP__) agent.__F_TAP__(entry);
    // (Index writes, not push: a page may have replaced Array.prototype.push.)
    pending[pending.length] = entry;
    if (pending.length > MAX_PENDING) {
        // Drop the oldest entry that is not part of the request in flight.
        const at = sending ? inFlight : 0;
        if (at < pending.length) {
            pending.splice(at, 1);
            dropped++;
        }
    }
    schedule(urgent ? 0 : __FLUSH_INTERVAL_MS__);
}

async function flush() {
    reportDrops();
    if (sending || dead || !pending.length) return;
    const count = Math.min(pending.length, batchMax);
    const taken = epoch;
    sending = true;
    inFlight = count;
    let status = 0;
    try {
        status = (await send(prefix + __LOGS_PATH__, options('POST', stringify(pending.slice(0, count))))).status;
    } catch (ignored) {}
    sending = false;
    inFlight = 0;
    const done = taken == epoch ? Math.min(count, pending.length) : 0;
    if (status >= 200 && status < 300) {
        pending.splice(0, done);
        backoff = 0;
        if (pending.length) schedule(pending.length >= batchMax ? 0 : __FLUSH_INTERVAL_MS__);
    } else if (status == 403) {
        dead = true;
        pending.length = 0;
        warn("the dev server refused this page's key (403); logs are not sent until it knows the page again (reload the page to reconnect).");
    } else if (status == 413) {
        // One entry the host will never take: give it up and say so.
        if (done <= 1) dropped += pending.splice(0, done).length;
        else batchMax = Math.max(1, done >> 1);
        schedule(0);
    } else {
        backoff = Math.min(Math.max(backoff * 2, BACKOFF_MIN_MS), BACKOFF_MAX_MS);
        schedule(backoff);
    }
}

// Sends everything still queued with sendBeacon (the page is going away or hidden); `gone` also
// tells the host the page left, so it stops offering it as a target at once.
function beacon(gone) {
    reportDrops();
    if (dead) return;
    // sendBeacon cannot set a header: the key rides in the query, of an absolute URL.
    const params = { [__P_KEY__]: key };
    if (gone) {
        params[__P_CLIENT__] = clientId;
        params[__P_GONE__] = '1';
    }
    const url = query(own(prefix + __LOGS_PATH__), params);
    const beam = (body) => {
        try {
            return K('navigator.sendBeacon')(url, body);
        } catch (ignored) {}
    };
    if (gone && !pending.length) beam('[]');
    let sent = 0;
    while (sent < pending.length && beam(stringify(pending.slice(sent, sent + BEACON_CHUNK)))) {
        sent = Math.min(sent + BEACON_CHUNK, pending.length);
    }
    if (sent) {
        pending.splice(0, sent);
        // A request in flight covered entries the beacon took: its answer must not drain.
        epoch++;
        inFlight = 0;
    }
}

// ---- heartbeat and phase ----------------------------------------------------------------------------

// The page an agent's step opened this one from (docs/popups.md): a popup that keeps its opener
// reads the opener's client id from its global (another origin's throws); a new tab without one
// (`target=_blank`, `noopener`) claims the note the opener's hands left in localStorage just
// before (under 10 s old), appending its own id, which the waiting hands hear in a `storage`
// event. Any other page reads `opener` and `history.length`, nothing more.
let openerId = '';
try {
    const o = win.opener;
    if (o) openerId = o[__GLOBAL__].__F_CLIENT_ID__ || '';
    else if (history.length < 2 && doc.referrer) {
        const s = win.localStorage,
            note = (s.getItem(__OPENER_STORAGE_KEY__) || '').split(' ');
        if (note.length == 2 && now() - +note[1] < 1e4) {
            openerId = note[0];
            s.setItem(__OPENER_STORAGE_KEY__, note[0] + ' ' + note[1] + ' ' + clientId);
        }
    }
} catch (ignored) {}

async function heartbeat() {
    if (stopped) return;
    const framed = win.parent != win;
    const params = {
        [__P_CLIENT__]: clientId,
        [__P_PAGE__]: location.href,
        [__P_TITLE__]: doc.title,
        [__P_PHASE__]: failure ? 'failed' : phase,
        [__P_VISIBLE__]: doc.hidden ? '0' : '1',
        [__P_FOCUSED__]: doc.hasFocus() ? '1' : '0',
        [__P_IFRAME__]: framed ? '1' : '0',
    };
    // The origin of the page that frames this one (never the parent's own location: across
    // origins that throws); `null` where the browser does not say.
    if (framed) params[__P_PARENT__] = (location.ancestorOrigins || [])[0] || 'null';
    if (openerId) params[__P_OPENER__] = openerId;
    params[__P_REV__] = rev;
    // How many times the page's own tools changed: only once it registered one.
    const tools = agent.__F_TOOLS__;
    if (tools && tools.r) params[__P_TOOLS__] = tools.r + '';
    if (wantTab) params[__P_TAB__] = tabId();
    if (failure) {
        params[__P_ERROR__] = failure[0].slice(0, 500);
        params[__P_STACK__] = failure[1].slice(0, 1500);
    }
    let res;
    try {
        // The key in a header, not the URL: it stays out of the host's access logs.
        res = await send(query(__PROBE_PATH__, params), options('GET'));
    } catch (e) {
        // The first heartbeat could not be sent (the page's CSP refuses connections): the
        // bootstrap's failure report takes over (through an <img>, naming the CSP directive), with
        // the entries not yet delivered.
        if (!reached && !stopped) {
            stopped = dead = true;
            stopPolling();
            tabs.stop();
            const queue = agent.__F_QUEUE__;
            for (const entry of pending.splice(0)) queue[queue.length] = [entry, 0];
            agent.__F_FAIL__(e);
        }
        return;
    }
    reached = true;
    if (res.status < 200 || res.status > 299) return;
    // A host that refused this page's key (one started from another folder) gave way to one that
    // knows it: logs go again, and the command poll starts again.
    dead = false;
    if (poll.refused) (poll.refused = false), startPolling();
    handoverWaits(res);
    // The host is there: whatever waits for a retry goes now.
    if (pending.length && backoff && !sending) schedule(0);
    // An agent is attached: fetch and compile the hands while the page is idle (and the
    // bootstrap answers the dialogs the page opens on its own, `at`).
    if ((agent.__F_ATTACHED__ = !!res.headers.get(__AGENT_HEADER__))) idle(() => hands().catch(Boolean));
    const served = res.headers.get(__REV_HEADER__);
    // One reload per revision; never where sessionStorage is blocked (it could not remember).
    if (!served || served == rev) return;
    const seen = session(1, RELOAD_KEY);
    if (seen === undefined || seen == served || !session(0, RELOAD_KEY, served)) return;
    beacon(false);
    location.reload();
}

// The host says a navigating batch waits for the next page of its tab: from now on this page sends
// its tab id (a heartbeat says it at once), and a page whose poll covers others asks them for theirs.
// True the first time.
function handoverWaits(res) {
    if (!res.headers.get(__HANDOVER_HEADER__)) return false;
    if (tabs.leader) tabs.post(TAB);
    if (wantTab) return false;
    wantTab = true;
    heartbeat();
    return true;
}

function idle(f) {
    if (win.requestIdleCallback) win.requestIdleCallback(f, { timeout: 2000 });
    else later(f, 1);
}

// ---- clicks: an `interaction` entry naming what was clicked ---------------------------------------

// What a click lands on: the nearest element a person means to press.
const CLICKABLE = 'button,a[href],input,select,textarea,summary,label,[role],[onclick],[tabindex]';
// Implicit roles of the elements a person clicks (the hands' snapshot has the whole table).
const ROLES = {
    a: 'link',
    button: 'button',
    summary: 'button',
    select: 'combobox',
    textarea: 'textbox',
    option: 'option',
    img: 'img',
    li: 'listitem',
    h1: 'heading',
    h2: 'heading',
    h3: 'heading',
    h4: 'heading',
    h5: 'heading',
    h6: 'heading',
    nav: 'navigation',
    dialog: 'dialog',
};
const INPUT_ROLES = {
    button: 'button',
    submit: 'button',
    reset: 'button',
    image: 'button',
    checkbox: 'checkbox',
    file: 'button',
    radio: 'radio',
    range: 'slider',
    number: 'spinbutton',
    search: 'searchbox',
    hidden: '',
};
// Roles whose name is their content.
const NAMED_BY_CONTENT = /^(button|link|checkbox|radio|heading|menuitem\w*|tab|option|treeitem|cell|gridcell|row|columnheader|rowheader|switch|tooltip)$/;
const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
const cut = (s, n) => (s.length > n ? s.slice(0, n - 3) + '...' : s);

function roleOf(el, tag) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return /^(generic|none|presentation)$/.test(explicit) ? '' : explicit;
    if (tag == 'a') return el.hasAttribute('href') ? 'link' : '';
    if (tag == 'input') {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        return type in INPUT_ROLES ? INPUT_ROLES[type] : 'textbox';
    }
    if (tag == 'select' && (el.multiple || el.size > 1)) return 'listbox';
    return ROLES[tag] || '';
}

function nameOf(el, tag, role) {
    const byIds = (el.getAttribute('aria-labelledby') || '')
        .split(/\s+/)
        .map((id) => {
            const t = id && doc.getElementById(id);
            return t ? t.textContent : '';
        })
        .join(' ');
    let name = squash(byIds) || squash(el.getAttribute('aria-label'));
    if (!name && el.labels) for (const l of el.labels) name += ' ' + l.textContent;
    name = squash(name);
    if (!name && tag == 'input' && role == 'button') name = el.value || (el.type == 'submit' ? 'Submit' : '');
    if (!name && tag == 'img') name = squash(el.getAttribute('alt'));
    if (!name && NAMED_BY_CONTENT.test(role)) name = squash(el.textContent);
    if (!name) name = squash(el.getAttribute('title') || el.getAttribute('placeholder'));
    return name;
}

// `role "name"`, `role`, `"text"`, `tag#id` or `tag`; names cut at 60 characters. (No ref: a
// person's click must not give out ref numbers.)
function clickLabel(el) {
    const tag = el.tagName.toLowerCase();
    const role = roleOf(el, tag);
    let name = nameOf(el, tag, role);
    if (!name && !role) name = squash(el.textContent);
    name = cut(name, 60);
    let label = role + (name ? (role ? ' "' : '"') + name + '"' : '');
    // A control named only by a glyph (`button "✖"` in every row) says which row's.
    const row = role && !/[\p{L}\p{N}]/u.test(name) && el.closest(__ROWS__);
    if (row) label += ' in "' + cut(squash(row.textContent.replace(/[^\p{L}\p{N}\p{P}]/gu, ' ')), 40) + '"';
    return label || tag + (el.id ? '#' + el.id : '');
}

// The element an event is about, inside an open shadow root too (`target` is retargeted to the host).
function eventElement(ev) {
    let el = ev.composedPath()[0];
    if (el && el.nodeType != 1) el = el.parentElement;
    return el && el.closest ? el : null;
}

function interaction(event, el, extra, before) {
    const entry = {
        [__FIELD_TYPE__]: __INTERACTION__,
        [__FIELD_EVENT__]: event,
        [__FIELD_TARGET__]: (before || '') + clickLabel(el),
        [__FIELD_TEXT__]: cut(squash(el.textContent), 100),
    };
    for (const k in extra) entry[k] = extra[k];
    agent.__F_STAMP__(entry, 0);
    return entry;
}

// The last click's entry and element: a double click turns it into one `dblclick` entry while it
// waits for delivery (a person's double click or the hands' `dblclick` is one act, not two clicks).
let lastClick = null;

function onClick(ev) {
    let el = eventElement(ev);
    if (!el) return;
    el = el.closest(CLICKABLE) || el;
    // The second click of a double click: its `dblclick` event says it.
    if (ev.detail > 1 && lastClick && lastClick[1] == el) return;
    lastClick = [interaction('click', el), el];
}

function onDoubleClick(ev) {
    let el = eventElement(ev);
    if (!el) return;
    el = el.closest(CLICKABLE) || el;
    const last = lastClick;
    lastClick = null;
    if (last && last[1] == el && pending.indexOf(last[0]) >= (sending ? inFlight : 0)) {
        last[0][__FIELD_EVENT__] = 'dblclick';
    } else interaction('dblclick', el);
}

// A committed change of a field (the `change` event: a `fill`, a `select`, a person's typing once
// the field is left): `fill` with its value (never a password's), `select` with the chosen options,
// `upload` with the file names. Checkboxes and radios are their click's entry.
function onChange(ev) {
    const el = eventElement(ev);
    if (!el) return;
    const tag = el.tagName.toLowerCase();
    const type = (el.type || '') + '';
    let event, value;
    if (tag == 'select') {
        event = 'select';
        value = '';
        for (const o of el.selectedOptions || []) value += (value ? ', ' : '') + squash(o.label || o.textContent);
    } else if (tag == 'textarea' || (tag == 'input' && type != 'checkbox' && type != 'radio')) {
        if (type == 'file') {
            event = 'upload';
            value = '';
            for (const f of el.files || []) value += (value ? ', ' : '') + f.name;
        } else {
            event = 'fill';
            value = type == 'password' ? '(hidden)' : el.value + '';
        }
    } else return;
    interaction(event, el, { [__FIELD_VALUE__]: cut(value, 100) });
}

// Keys that act rather than type (Enter, Escape, Tab, arrows, paging, F-keys) and shortcuts with
// Control, Alt or Meta: `press` entries; typed characters are their field's `fill`.
const ACTING_KEY = /^(Enter|Escape|Tab|Arrow\w+|Page\w+|Home|End|Delete|F\d+)$/;
function onKey(ev) {
    const k = ev.key;
    if (ev.repeat || typeof k != 'string' || /^(Control|Alt|Meta|Shift)$/.test(k)) return;
    const combo = ev.ctrlKey || ev.altKey || ev.metaKey;
    if (!combo && !ACTING_KEY.test(k)) return;
    const el = eventElement(ev) || doc.body;
    if (!el) return;
    const keys = [ev.ctrlKey && 'Control', ev.altKey && 'Alt', ev.metaKey && 'Meta', ev.shiftKey && combo && 'Shift', k]
        .filter(Boolean)
        .join('+');
    interaction('press', el, { [__FIELD_KEY__]: keys }, keys + ' in ');
}

// ---- the hands: the wasm client, loaded on the first batch or while idle ------------------------------

let loading;
// The hands' module (its `run(batch)`), loaded once; a failed load is reported as the page's phase
// `failed` with the reason, and tried again by the next batch.
function hands() {
    return (loading =
        loading ||
        agent
            .__F_LOAD__(cfg.__F_CFG_CLIENT__)
            .then((glue) => glue.default({ module_or_path: cfg.__F_CFG_WASM__ && own(cfg.__F_CFG_WASM__) }).then(() => glue))
            .then(
                (glue) => {
                    if (failure) {
                        failure = 0;
                        heartbeat();
                    }
                    return glue;
                },
                (e) => {
                    // Reported as a client that failed to start (the host then lists the page as
                    // `failed` with the reason and answers the agent's batches with it).
                    loading = 0;
                    failure = [errorText(e), (e && e.stack) || ''];
                    heartbeat();
                    throw new Error('browser-agent client failed to start: ' + failure[0]);
                }
            ));
}
agent.__F_HANDS__ = hands;
// The debug hooks the hands set (snapshot(), ref(), describe()) load them first when called before.
function stub(get) {
    const f = (...args) => hands().then(() => (get() == f ? Promise.reject(new Error('no hands')) : get()(...args)));
    return f;
}
agent.__F_SNAPSHOT_HOOK__ = stub(() => agent.__F_SNAPSHOT_HOOK__);
agent.__F_REF_HOOK__ = stub(() => agent.__F_REF_HOOK__);

// Runs a batch on this page and posts its results.
async function runBatch(batch) {
    agent.__F_BUSY__ = agent.__F_ATTACHED__ = true;
    const started = now();
    let results;
    try {
        results = await (await hands()).run(batch);
    } catch (e) {
        const steps = batch[__FIELD_STEPS__] || [];
        results = {
            [__FIELD_ID__]: batch[__FIELD_ID__],
            [__FIELD_STEPS__]: [
                {
                    [__FIELD_INDEX__]: batch[__FIELD_OFFSET__] || 0,
                    [__FIELD_COMMAND__]: (steps[0] || {})[__FIELD_COMMAND__] || '',
                    [__FIELD_ERROR__]: (e && e.message) || e + '',
                },
            ],
            [__FIELD_SNAPSHOT__]: '',
            [__FIELD_LOGS__]: [],
            [__FIELD_DURATION__]: now() - started,
        };
    }
    agent.__F_BUSY__ = false;
    // Null: handed over to the next page of the tab; undefined: to a tab a step opened, this page
    // staying (the results were posted already).
    if (results != null) await postResults(results);
    // The page closed itself during a step (an OAuth popup): now that the agent has its answer.
    const close = agent.__F_CLOSE__;
    if (close) (agent.__F_CLOSE__ = 0), close();
    return results !== null;
}

// Posts a batch's results; a few attempts when the host is briefly unreachable.
async function postResults(results) {
    const body = stringify(results);
    for (let attempt = 0; attempt < RESULT_ATTEMPTS; attempt++) {
        let status = 0;
        try {
            status = (await send(prefix + __RESULTS_PATH__, options('POST', body))).status;
        } catch (ignored) {}
        if (status && status < 500) return;
        await sleep(POLL_BACKOFF_MIN_MS << attempt);
    }
}

// ---- the command poll -------------------------------------------------------------------------------
// A long-poll `GET {prefix}/commands?client=&wait=` (a batch, or 204 when the hold ran out, then at
// once the next poll). Network errors and 5xx back off 1 s doubling to 10 s; a 403 stops it until a
// heartbeat is answered again (a host with this page's key is back). The poll
// in flight is aborted on `pagehide` and a new one starts on `pageshow`. One poll per browser and
// origin (see the tabs below): a newer poll makes the host answer the older one 204, and the older
// one is read to its end, never losing a batch it brings.

const poll = { generation: 0, active: false, controller: null, refused: false };

function startPolling() {
    if (poll.active) return;
    poll.active = true;
    pollLoop(++poll.generation, 0);
}

// Polls anew (for a new set of pages), after a short wait: one poll for a burst of new pages.
function restartPolling() {
    ++poll.generation;
    if (poll.active) pollLoop(poll.generation, 50);
}

function stopPolling() {
    poll.active = false;
    ++poll.generation;
    const c = poll.controller;
    poll.controller = null;
    if (c) c.abort();
}

const pollMs = () => (agent.__F_POLL_MS__ > 0 ? agent.__F_POLL_MS__ : 0);

async function pollOnce(generation) {
    /** @type {{ [name: string]: string | number }} */
    const params = { [__P_CLIENT__]: clientId };
    // The longest hold the host grants, unless the page asked for plain polling.
    if (!pollMs()) params[__P_WAIT__] = __POLL_WAIT_MS__;
    if (wantTab) params[__P_TAB__] = tabId();
    const covered = tabs.covered();
    if (covered) params[__P_CLIENTS__] = covered;
    const init = options('GET');
    const controller = new (K('AbortController'))();
    init.signal = controller.signal;
    poll.controller = controller;
    let res;
    try {
        res = await send(query(prefix + __COMMANDS_PATH__, params), init);
    } catch (ignored) {
        return 'failed';
    } finally {
        if (poll.generation == generation) poll.controller = null;
    }
    if (res.status == 200) {
        try {
            const batch = await res.json();
            return batch && typeof batch == 'object' ? batch : 'failed';
        } catch (ignored) {
            return 'failed';
        }
    }
    if (res.status == 204 && res.headers.get(__HANDOVER_HEADER__)) return handoverWaits(res) ? 'again' : 'wait';
    return res.status == 204 ? 'empty' : res.status == 403 ? 'refused' : 'failed';
}

async function pollLoop(generation, delay) {
    // (Not in a hidden page: its timers wait for the browser's next wake-up, up to 1 s, while a
    // page it covers waits for this poll to take the batch its tab handed over.)
    if (delay && !doc.hidden) await sleep(delay);
    let wait = 0,
        asked = 0;
    while (poll.generation == generation) {
        const started = now();
        const outcome = await pollOnce(generation);
        if (typeof outcome == 'object') {
            wait = asked = 0;
            // Another page's (the poll covered it): relayed. This page's runs before the next poll:
            // a batch that navigates hands its rest to the tab's next page, which must poll first.
            const c = outcome[__FIELD_CLIENT__];
            if (typeof c == 'string' && c != clientId) tabs.relay(c, outcome);
            else await runBatch(outcome);
        }
        if (poll.generation != generation) break;
        if (outcome == 'empty') {
            wait = 0;
            const interval = pollMs() || MIN_POLL_INTERVAL_MS;
            const took = now() - started;
            if (took < interval) await sleep(interval - took);
        } else if (outcome == 'wait') {
            // Asked again for tabs while a handover waits: what this page knows went already, and
            // the pages it covers answer over the channel. A hidden page asks once more at once
            // (see above): a page that just loaded names its tab within milliseconds.
            if (asked++ || !doc.hidden) await sleep(250);
        } else if (outcome == 'refused') {
            // Until a heartbeat is answered again (the host restarted with this page's key).
            poll.active = false;
            poll.refused = true;
            break;
        } else if (outcome == 'failed') {
            wait = Math.min(Math.max(wait * 2, POLL_BACKOFF_MIN_MS), POLL_BACKOFF_MAX_MS);
            await sleep(wait);
        }
    }
}

// ---- one poll per browser and origin ----------------------------------------------------------------
// The pages of one origin, prefix and key (tabs, same-origin frames) share one long-poll, so any
// number of tabs leaves the browser's six connections per host to the pages. The page holding the
// Web Lock `{prefix} {key}` leads: it polls for itself and every page that announced itself on the
// BroadcastChannel of the same name, and relays a batch for another page over the channel; that
// page runs it and posts its own results. When the leader leaves, the lock passes on, and the new
// leader asks the others to announce themselves. A page that ends without `pagehide` (a crashed
// renderer) says no BYE: on every heartbeat the leader drops the pages that did not answer the last
// roll call (WHO) and calls it again, so a dead page leaves the poll within two heartbeats; pages
// answer from their message task, which a hidden tab's timer throttling does not delay. Without
// BroadcastChannel or navigator.locks (an insecure context, an opaque origin) each page polls alone.
// While a handover waits, the leader asks every page for its tab id ([TAB]; see handoverWaits).
// A page runs a relayed batch uncovered, as the leader runs its own before it polls again: a covered
// page whose tab the host knows would otherwise take back the rest it just handed over, and unload
// with it (it says DONE, naming the batch, when the batch ended there).
// Messages: [HELLO, id], [BYE, id], [WHO], [RUN, id, batch], [TAB], [DONE, id, batch id].

const HELLO = 0,
    BYE = 1,
    WHO = 2,
    RUN = 3,
    TAB = 4,
    DONE = 5;
const tabs = {
    channel: null,
    release: null,
    abort: null,
    generation: 0,
    leader: false,
    pages: new (K('Set'))(),
    heard: new (K('Set'))(),
    // Pages running a batch the leader relayed: client id → that batch's id (a late DONE of the
    // page's previous batch must not uncover it).
    /** @type {{ [client: string]: string }} */
    busy: {},
    post(kind, c, b) {
        try {
            this.channel.postMessage([kind, c, b]);
        } catch (ignored) {}
    },
    // Starts sharing the poll; false when this browser cannot (then the page polls alone).
    start() {
        if (this.channel) return true;
        const locks = K('navigator.locks');
        const Channel = K('BroadcastChannel');
        // An opaque origin (a sandboxed frame) has no locks to share.
        if (location.origin == 'null' || !locks || !Channel) return false;
        const name = prefix + ' ' + key;
        try {
            this.channel = new Channel(name);
        } catch (ignored) {
            return false;
        }
        this.pages = new (K('Set'))();
        this.heard = new (K('Set'))();
        this.busy = {};
        const generation = this.generation;
        // Withdraws the request on `stop`: a request still queued when the page enters the
        // back/forward cache would be granted there, to a frozen page that never polls nor releases.
        const abort = (this.abort = new (K('AbortController'))());
        try {
            // Runs with the lock once it is ours; holds it until the promise it returns settles.
            locks
                .request(name, { signal: abort.signal }, () => {
                    if (this.generation != generation) return;
                    this.leader = true;
                    this.post(WHO);
                    startPolling();
                    return new Promise((done) => (this.release = done));
                })
                .catch(Boolean);
        } catch (ignored) {
            this.stop();
            return false;
        }
        this.channel.onmessage = (e) => this.message(e.data);
        this.post(HELLO, clientId);
        return true;
    },
    // Says BYE, gives the lock to another page and closes the channel (so the page stays fit for
    // the back/forward cache).
    stop() {
        this.post(BYE, clientId);
        this.generation++;
        this.leader = false;
        if (this.channel) this.channel.close();
        this.channel = null;
        if (this.abort) this.abort.abort();
        this.abort = null;
        if (this.release) this.release();
        this.release = null;
    },
    message(d) {
        const [kind, c, b] = d || [];
        if (kind == RUN) {
            // DONE when the batch ended here; after a handover, only once the host no longer
            // holds the rest for this tab (the page stayed: a download, a refused navigation).
            const done = () => this.post(DONE, clientId, b && b[__FIELD_ID__]);
            if (c == clientId)
                runBatch(b).then(
                    (here) => (here ? done() : sleep(__HANDOVER_WAIT_MS__).then(done)),
                    done,
                );
            return;
        }
        if (kind == TAB) {
            if (!wantTab) {
                wantTab = true;
                heartbeat();
            }
            return;
        }
        if (!this.leader) {
            if (kind == WHO) this.post(HELLO, clientId);
            return;
        }
        if (typeof c != 'string') return;
        if (kind == BYE || kind == DONE) {
            if (kind == DONE && this.busy[c] != b) return;
            delete this.busy[c];
            if (kind == BYE) this.pages.delete(c);
            else restartPolling();
        } else {
            this.heard.add(c);
            if (!this.pages.has(c)) {
                this.pages.add(c);
                restartPolling();
            }
        }
    },
    // On every heartbeat: the leader drops the pages that did not answer the last roll call.
    beat() {
        if (!this.leader) return;
        let changed = false;
        for (const c of [...this.pages]) {
            if (!this.heard.has(c)) {
                this.pages.delete(c);
                delete this.busy[c];
                changed = true;
            }
        }
        this.heard.clear();
        this.post(WHO);
        if (changed) restartPolling();
    },
    // The `clients=` of the leader's poll: every page it covers, but those running a batch it relayed.
    covered() {
        return this.leader ? [...this.pages].filter((c) => this.busy[c] == null).join(',') : '';
    },
    // Relays a batch; and polls anew, so that no poll the host holds still covers that page (one
    // sent before the batch came, when a page's DONE restarted the poll): the host ends an older
    // held poll when a newer one comes.
    relay(c, batch) {
        this.busy[c] = batch[__FIELD_ID__];
        this.post(RUN, c, batch);
        restartPolling();
    },
};

// ---- what the hands' walk asks of the page's scripts and styles --------------------------------------

// oc(el): whether el's `onclick` property is a handler that does something. React sets an empty one
// (`onclick = noop`, for old Safari) on its root and on every portal container; as a handler it made
// the whole page one clickable, whose centre a text target then clicked.
agent.__F_ONCLICK__ = (el) => {
    const f = el.onclick;
    try {
        return typeof f == 'function' && !/^[^{]*\{\s*\}\s*$/.test(apply(K('Function.prototype.toString'), f, []));
    } catch (e) {
        // (A function whose source cannot be read counts as a handler.)
        return 1;
    }
};

// pc(root): whether the style sheets of `root` (a document or a shadow root) may give a ::before or
// ::after any `content`. The snapshot reads pseudo-elements only where they may (reading them is
// ~40 % of a big page's walk). Whatever it cannot read (a cross-origin sheet, an @import not loaded,
// over 10,000 rules) or that throws counts as yes. A sheet's verdict is kept while its rule count
// stays; adopted sheets, which replaceSync() rewrites in place, are read every time.
const verdicts = new (K('WeakMap'))();
agent.__F_PSEUDO__ = (root) => {
    let left = 10000;
    const any = (rules) => {
        for (let i = 0; i < rules.length; i++) {
            const r = rules[i],
                style = r.style;
            if (--left < 0) return 1;
            // An @import: its sheet (null when it did not load).
            if (r.styleSheet !== undefined) {
                if (!r.styleSheet || any(r.styleSheet.cssRules)) return 1;
            } else if (
                // A rule with `content` for a ::before or ::after (the selector read only then), or
                // a group (@media, @layer, nesting) holding one.
                (style && style.content && /:(before|after)/i.test(r.selectorText)) ||
                (r.cssRules && r.cssRules.length && any(r.cssRules))
            ) {
                return 1;
            }
        }
        return 0;
    };
    const sheet = (s, keep) => {
        const rules = s.cssRules,
            known = keep && verdicts.get(s);
        if (known && known[0] === rules.length) return known[1];
        const verdict = any(rules);
        if (keep) verdicts.set(s, [rules.length, verdict]);
        return verdict;
    };
    try {
        const sheets = root.styleSheets,
            adopted = root.adoptedStyleSheets || [];
        for (let i = 0; i < sheets.length; i++) if (sheet(sheets[i], 1)) return 1;
        for (let i = 0; i < adopted.length; i++) if (sheet(adopted[i], 0)) return 1;
        return 0;
    } catch (e) {
        return 1;
    }
};

// ---- vitals: the page's worst performance records, read by the hands' `vitals` step -----------------
// One PerformanceObserver, registered while the page is idle (`buffered` hands it what came before):
// the last LCP candidate, the CLS (its largest session window: shifts less than 1 s apart, 5 s at
// most) and the worst VITALS_KEPT records of each other kind as [score, entry], the entries with
// their elements. Nothing is read or sent until an agent asks (`vt()`).
const VITALS_KEPT = 10;
// How long after input the browser keeps a layout shift out of the CLS (`hadRecentInput`).
const RECENT_INPUT_MS = 500;
// l: LCP entry; c: CLS; s: shifts; e: interactions' events; t: long tasks; f: long animation
// frames; r: resources.
const vitals = { l: 0, c: 0, s: [], e: [], t: [], f: [], r: [] };
let observer,
    shiftFirst = 0,
    shiftLast = -1e9,
    shiftSum = 0;
function keep(list, score, entry) {
    let i = list.length;
    while (i && list[i - 1][0] < score) i--;
    if (i < VITALS_KEPT) list.splice(i, 0, [score, entry]);
    if (list.length > VITALS_KEPT) list.length = VITALS_KEPT;
}
function perf(records) {
    for (const e of records.getEntries ? records.getEntries() : records) {
        const type = e.entryType;
        if (type == 'largest-contentful-paint') vitals.l = e;
        else if (type == 'layout-shift') {
            // A person's input sets `hadRecentInput`; the agent's synthetic events do not, so its
            // steps (and 500 ms after each) are left out the same way.
            const t0 = e.startTime;
            if (e.hadRecentInput || (agent.__F_INPUTS__ || []).some((w) => t0 >= w[0] && t0 <= w[1] + RECENT_INPUT_MS))
                continue;
            const t = e.startTime;
            if (t - shiftLast > 1000 || t - shiftFirst > 5000) {
                shiftFirst = t;
                shiftSum = 0;
            }
            shiftLast = t;
            shiftSum += e.value;
            if (shiftSum > vitals.c) vitals.c = shiftSum;
            keep(vitals.s, e.value, e);
        } else if (
            (type != 'event' || e.interactionId) &&
            // (The client's own requests, a held poll first of all, are not the page's.)
            !(type == 'resource' && (!e.name.indexOf(own(prefix)) || !e.name.indexOf(own(__PROBE_PATH__))))
        )
            keep(vitals[type == 'event' ? 'e' : type == 'longtask' ? 't' : type == 'resource' ? 'r' : 'f'], e.duration, e);
    }
}
function observeVitals() {
    if (observer !== undefined) return;
    observer = 0;
    try {
        observer = new win.PerformanceObserver(perf);
        for (const type of ['largest-contentful-paint', 'layout-shift', 'event', 'longtask', 'long-animation-frame', 'resource']) {
            // (`durationThreshold`: Event Timing's, unknown to the DOM typings.)
            const init = /** @type {PerformanceObserverInit} */ ({ type, buffered: true, durationThreshold: 16 });
            try {
                observer.observe(init);
            } catch (ignored) {}
        }
    } catch (ignored) {}
}
// What was kept, with the records not yet delivered; the observer starts now if idle did not come.
agent.__F_VITALS__ = () => {
    observeVitals();
    if (observer) perf(observer.takeRecords());
    return vitals;
};

// ---- the parent-frame API ----------------------------------------------------------------------------
// An IDE that frames the app: messages on one channel, from window.parent only, and only from the
// configured origin when there is one. Outbound `ready`, `location` (when it changed), and the
// hands' `command-started` / `command-completed` (through `f`); inbound the `notes-…` commands,
// `capture-page`, `navigate`, `back`, `forward`, `healthcheck`, `cursor-show`/`-hide`/`-auto`.

const framed = win.parent != win;
const parentOrigin = cfg.__F_CFG_NOTES_ORIGIN__;
let lastLocation;

function toParent(command, data) {
    if (!framed) return;
    const m = { channel: __NOTES_CHANNEL__, command };
    for (const k in data) m[k] = data[k];
    try {
        win.parent.postMessage(m, parentOrigin || '*');
    } catch (ignored) {}
}

function tellLocation() {
    const nav = win.navigation;
    const l = {
        url: location.href,
        canGoBack: nav ? nav.canGoBack : history.length > 1,
        canGoForward: nav ? nav.canGoForward : false,
    };
    const at = l.url + l.canGoBack + l.canGoForward;
    if (at != lastLocation) {
        lastLocation = at;
        toParent('location', l);
    }
}

// A screenshot of the page for the parent, as a data URL.
async function capturePage() {
    const shot = await agent.__F_LOAD__(prefix + __ASSETS_DIR__ + __LAZY_SCREENSHOT__ + '-' + rev.slice(0, 12) + '.js');
    const { blob } = await shot.capture({ format: 'png' });
    return new Promise((done, failed) => {
        const reader = new FileReader();
        reader.onload = () => done(reader.result);
        reader.onerror = failed;
        reader.readAsDataURL(blob);
    });
}

function onParentMessage(e) {
    const m = e.data;
    if (e.source != win.parent || !m || m.channel != __NOTES_CHANNEL__ || (parentOrigin && e.origin != parentOrigin)) return;
    const c = m.command;
    if (/^notes-/.test(c)) {
        if (cfg.__F_CFG_NOTES__ !== false) agent.__F_NOTES__(c, m).catch(Boolean);
    } else if (c == 'navigate') {
        // http(s) only; a URL that does not parse is ignored, never thrown into the page.
        try {
            if (typeof m.url == 'string' && /^https?:$/.test(new (K('URL'))(m.url, location.href).protocol)) location.href = m.url;
        } catch (ignored) {}
    } else if (c == 'back') history.back();
    else if (c == 'forward') history.forward();
    else if (c == 'healthcheck') toParent('healthcheck-reply', { connected: !!agent.__F_STARTED__, url: location.href });
    else if (/^cursor-(show|hide|auto)$/.test(c)) {
        agent.__F_CURSOR_MODE__ = c.slice(7);
        // A cursor on screen goes now; the next action brings it back unless hidden.
        const drawn = doc.getElementById('__browser-agent-cursor');
        if (drawn && c == 'cursor-hide') drawn.style.opacity = '0';
    } else if (c == 'capture-page')
        capturePage().then(
            (image) => toParent('capture-page-result', { image }),
            (e) => toParent('capture-page-result', { error: ((e && e.message) || e) + '' })
        );
}

// ---- start ------------------------------------------------------------------------------------------

function start() {
    if (agent.__F_STARTED__) return;
    agent.__F_STARTED__ = true;
    dropped += agent.__F_DROPPED__ | 0;
    agent.__F_DROPPED__ = 0;
    const onEntry = (entry, kind) => {
        record(entry, kind & __KIND_URGENT__);
        if (kind & __KIND_NAV__) {
            heartbeat();
            tellLocation();
        }
    };
    const early = agent.__F_QUEUE__;
    for (const [entry, kind] of early) onEntry(entry, kind);
    early.length = 0;
    agent.__F_HANDLER__ = onEntry;
    // The page's tools changed: one heartbeat soon says so (a burst of registrations, one beat).
    let toolsBeat = 0;
    agent.__F_TOOLS_BEAT__ = () => {
        toolsBeat =
            toolsBeat ||
            later(() => {
                toolsBeat = 0;
                heartbeat();
            }, 50);
    };
    doc.addEventListener('click', onClick, true);
    doc.addEventListener('dblclick', onDoubleClick, true);
    doc.addEventListener('change', onChange, true);
    doc.addEventListener('keydown', onKey, true);

    const listen = K('addEventListener');
    K('setInterval')(() => {
        heartbeat();
        tabs.beat();
    }, __HEARTBEAT_INTERVAL_MS__);
    listen('pagehide', () => beacon(true));
    doc.addEventListener('visibilitychange', () => {
        if (doc.hidden) beacon(false);
        heartbeat();
    });
    listen('focus', heartbeat);
    listen('blur', heartbeat);
    if (doc.readyState == 'loading') {
        doc.addEventListener('DOMContentLoaded', () => {
            phase = 'ready';
            heartbeat();
        });
    } else phase = 'ready';
    heartbeat();
    schedule(0);

    // The command channel: shared with the browser's other pages of this origin, or alone; stopped
    // on `pagehide`, started again on `pageshow` (the back/forward cache).
    const open = () => tabs.start() || startPolling();
    listen('pagehide', () => {
        stopPolling();
        tabs.stop();
    });
    listen('pageshow', open);
    open();
    idle(observeVitals);

    if (framed) {
        agent.__F_TO_PARENT__ = toParent;
        listen('message', onParentMessage);
        listen('hashchange', tellLocation);
        listen('popstate', tellLocation);
        toParent('ready', { url: location.href });
        tellLocation();
    }
}

start();
