// The `audit` step's module (served as `audit-{rev}.js`, imported by the hands on the first
// audit, never before): axe-core, as npm ships it (browser-agent-client/audit/package.json, pinned),
// and this adapter around it. scripts/build-client puts node_modules/axe-core/axe.min.js where the
// marker comment below stands, byte for byte; nothing of axe is rewritten here.
//
// axe's UMD prologue registers itself with an AMD `define` or a CommonJS `module` when the page has
// one, and always as `window.axe`: both are shadowed by this function's parameters, and the page's
// own `window.axe` (or its absence) is put back, so loading the module leaves the page as it was.

const axe = (function (define, module) {
    const had = Object.prototype.hasOwnProperty.call(window, 'axe');
    const old = window['axe'];
    /* AXE-CORE */
    const found = window['axe'];
    if (had) window['axe'] = old;
    else delete window['axe'];
    return found;
})(undefined, undefined);

/** The impacts axe gives, most severe first. */
const IMPACTS = ['critical', 'serious', 'moderate', 'minor'];

/** Longest fix text of a rule or an element, in characters (the answer stays within its budget). */
const MAX_FIX = 300;

/** Ways to fix listed per block: axe lists every check that would pass (up to 8 for a name);
 * the first ones are the usual fixes, the rest are counted. */
const MAX_WAYS = 3;

/** What the client itself draws in the page (the agent cursor, its click ripple, notes mode):
 * never the page's to fix, so never audited. */
const OURS = ['#__browser-agent-cursor', '#__browser-agent-ripple', '#__browser-agent-notes'];

/** One run at a time: axe refuses a second `axe.run` while one is running. */
let running = Promise.resolve();

/**
 * A node's `failureSummary` ("Fix any of the following:\n  a\n  b\n\nFix all of the following:\n  c")
 * in one line: `any of: a | b; all of: c` (`a` alone when it is the only way), the first
 * [MAX_WAYS] ways of each block and how many more.
 * @param {string | undefined} summary
 * @returns {string}
 */
function fix(summary) {
    const parts = [];
    for (const block of String(summary || '').split(/\n\s*\n/)) {
        const lines = block.split('\n').map((l) => l.trim()).filter(Boolean);
        if (!lines.length) continue;
        const head = /^Fix (any|all) of the following:?$/i.exec(lines[0]);
        const items = head ? lines.slice(1) : lines;
        if (!items.length) continue;
        const kind = head ? head[1].toLowerCase() : '';
        let ways = items.slice(0, MAX_WAYS).join(' | ');
        if (items.length > MAX_WAYS) ways += ' | (' + (items.length - MAX_WAYS) + ' more)';
        parts.push(items.length === 1 || !kind ? ways : kind + ' of: ' + ways);
    }
    const text = parts.join('; ');
    return text.length > MAX_FIX ? text.slice(0, MAX_FIX - 3) + '...' : text;
}

/**
 * Runs axe on `root` (an element: its subtree; else the whole document) and answers compactly:
 * `{version, ran, incomplete: [{id, total, nodes: [el]}], rules: [{id, impact, help, fix, total,
 * nodes: [{el, fix}]}]}`,
 * rules most severe first, at most `limit` nodes each (`total` says how many there were).
 * Frames are not entered (axe would wait for a copy of itself in each); what the client draws is
 * left out.
 * @param {Element | null | undefined} root
 * @param {number} limit
 */
/** Elements named per rule axe could not decide (fewer when `limit` says so). */
const INCOMPLETE_SHOWN = 3;

export function run(root, limit) {
    const context = root ? { include: [root], exclude: OURS } : { exclude: OURS };
    const go = () => axe.run(context, { resultTypes: ['violations', 'incomplete'], elementRef: true, iframes: false });
    const result = running.then(go, go);
    running = result.then(
        () => {},
        () => {},
    );
    return result.then((r) => {
        const rules = r.violations.map((v) => {
            const nodes = v.nodes.slice(0, limit).map((n) => ({ el: n.element || null, fix: fix(n.failureSummary) }));
            return {
                id: v.id,
                impact: v.impact || 'minor',
                help: v.help,
                fix: nodes.length ? nodes[0].fix : fix(v.nodes[0] && v.nodes[0].failureSummary),
                total: v.nodes.length,
                nodes,
            };
        });
        const rank = (/** @type {{impact: string, total: number}} */ v) => IMPACTS.indexOf(v.impact);
        rules.sort((a, b) => rank(a) - rank(b) || b.total - a.total);
        return {
            version: axe.version,
            ran: r.violations.length + r.passes.length + r.incomplete.length + r.inapplicable.length,
            // (Each with the elements axe could not decide, at most INCOMPLETE_SHOWN.)
            incomplete: r.incomplete.map((v) => ({
                id: v.id,
                total: v.nodes.length,
                nodes: v.nodes.slice(0, Math.min(limit, INCOMPLETE_SHOWN)).map((n) => n.element || null),
            })),
            rules,
        };
    });
}
