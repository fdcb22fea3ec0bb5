// Compares our snapshot with Playwright's aria snapshots on the snapshot fixtures (issue 5,
// "Tests and figures"). Run through scripts/compare-playwright, which installs playwright-core
// and gpt-tokenizer into tools/node and starts the demo; this script only needs the demo's URL:
//
//   node scripts/playwright-aria.mjs --base http://127.0.0.1:PORT [--out DIR] fixture...
//
// For each fixture page (opened at /snapshot/<name>.html in Debian's Chromium, headless, through
// playwright-core with executablePath /usr/bin/chromium) it takes, after load + network idle (no
// request but the agent's long-poll in flight for 500 ms):
//   - Playwright's default snapshot: page.locator('body').ariaSnapshot();
//   - Playwright's AI snapshot (what Playwright MCP sends): page.ariaSnapshot({mode: 'ai'}), when
//     the installed version has it (it stitches same-origin frames in, with f1eN refs);
//   - ours, live from the agent API: GET /__mindstudio_dev__/snapshot?client=<the page's client id>.
// It prints a markdown table of sizes (characters; tokens as chars/4; o200k tokens when
// gpt-tokenizer is installed) and a coverage check: every interactive node of Playwright's AI
// snapshot that has a ref (Playwright gives refs only to visible nodes that receive pointer
// events) must be a ref'd node of ours with the same role and name.
// Every request goes to 127.0.0.1; the browser resolves nothing else.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'tools/node/package.json'));
const { chromium } = require('playwright-core');
let countO200k = null;
try {
  countO200k = require('gpt-tokenizer/encoding/o200k_base').countTokens;
} catch {
  // No offline tokenizer: the table gives chars/4 only.
}

const args = process.argv.slice(2);
let base = null;
let outDir = null;
const fixtures = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--base') base = args[++i];
  else if (args[i] === '--out') outDir = args[++i];
  else fixtures.push(args[i]);
}
if (!base || !/^http:\/\/127\.0\.0\.1:\d+$/.test(base) || fixtures.length === 0) {
  console.error('usage: node scripts/playwright-aria.mjs --base http://127.0.0.1:PORT [--out DIR] fixture...');
  process.exit(2);
}
const prefix = `${base}/__mindstudio_dev__`;

// Roles an agent acts on. `option` is left out: options of a combobox/listbox are chosen through
// their parent (which must have a ref); the counts still show them.
const INTERACTIVE = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'slider',
  'spinbutton', 'switch', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem',
]);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function getJson(url) {
  const res = await fetch(url);
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

function unquote(q) {
  try {
    return JSON.parse(q);
  } catch {
    return q.slice(1, -1).replace(/\\(.)/g, '$1');
  }
}

const norm = (s) => s.replace(/\s+/g, ' ').trim();

// Parses `- role "name" [attr]…[: text]` (Playwright) or `role "name" [attr]…` (ours) lines.
// Playwright's AI mode drops a name its distiller finds redundant (`- button [ref=e5]:` over
// `- img "Help"`, or `- button [ref=e6]: Label`); such a node takes its inline text or the first
// name or text below it.
// Our compact lines hold several nodes: `listitem: link "All" [ref=e9]` (a single child on its
// parent's line), `row: "a" | cell: button "B" [ref=e1]` (a row's cells). Splits a line at `: `
// and ` | ` outside quotes and brackets; bare quoted cells and `… N more` cut lines say nothing here.
function splitOurs(line) {
  if (line.startsWith('… ')) return [];
  const parts = [];
  let start = 0, quoted = false, esc = false, brackets = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (esc) esc = false;
      else if (c === '\\') esc = true;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '[') brackets++;
    else if (c === ']') brackets = Math.max(0, brackets - 1);
    else if (brackets === 0 && (line.startsWith(': ', i) || line.startsWith(' | ', i))) {
      parts.push(line.slice(start, i));
      i += line[i] === ':' ? 1 : 2;
      start = i + 1;
    }
  }
  parts.push(line.slice(start));
  return parts.filter((p) => !p.startsWith('"'));
}

function parseNodes(text, { playwright }) {
  const nodes = [];
  const open = []; // unnamed Playwright nodes waiting for a child's name, with their depth
  const lines = playwright
    ? text.split('\n')
    : text.split('\n').flatMap((raw) => {
        const depth = raw.length - raw.trimStart().length;
        return splitOurs(raw.trimStart()).map((p) => ' '.repeat(depth) + p);
      });
  for (const raw of lines) {
    let line = raw.trimStart();
    const depth = raw.length - line.length;
    while (open.length && open[open.length - 1].depth >= depth) open.pop();
    if (playwright) {
      if (!line.startsWith('- ')) continue;
      line = line.slice(2);
      if (line.startsWith('/')) continue; // - /url:, - /placeholder:
    }
    const m = /^([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)(?::\s*(.*))?$/.exec(line);
    if (!m) continue;
    let inline = m[4] ? m[4].trim() : '';
    if (/^".*"$/.test(inline)) inline = unquote(inline);
    const name = m[2] ? norm(unquote(m[2])) : '';
    const childName = name || (m[1] === 'text' ? norm(inline) : '');
    if (childName) {
      for (const o of open) if (!o.node.name) o.node.name = childName;
      open.length = 0;
    }
    if (m[1] === 'text') continue;
    const attrs = m[3] || '';
    const ref = /\[ref=([a-z0-9]+)\]/.exec(attrs);
    const node = {
      role: m[1],
      name: name || (playwright ? norm(inline) : ''),
      ref: ref ? ref[1] : null,
      pointer: attrs.includes('[cursor=pointer]'),
      line: raw.trim(),
    };
    nodes.push(node);
    if (playwright && !node.name) open.push({ node, depth });
  }
  return nodes;
}

function sameName(a, b) {
  if (a === b) return true;
  // Ours cuts names over 80 characters with `…`.
  for (const [x, y] of [[a, b], [b, a]]) {
    if (x.endsWith('…') && y.startsWith(x.slice(0, -1).trimEnd())) return true;
  }
  return false;
}

function countRoles(nodes, pick) {
  const counts = {};
  for (const n of nodes) if (pick(n)) counts[n.role] = (counts[n.role] || 0) + 1;
  return counts;
}

const fmtCounts = (c) =>
  Object.keys(c).sort().map((r) => `${r} ${c[r]}`).join(', ') || '—';

// Every Playwright node in `theirs` must match a distinct ref'd node of ours (same role and name;
// failing that, same name and another role, reported as a role difference).
function coverage(theirs, ours) {
  const pool = ours.filter((n) => n.ref);
  const used = new Set();
  const missing = [];
  const roleDiffers = [];
  for (const t of theirs) {
    let i = pool.findIndex((o, k) => !used.has(k) && o.role === t.role && sameName(o.name, t.name));
    if (i < 0) {
      i = pool.findIndex((o, k) => !used.has(k) && t.name !== '' && sameName(o.name, t.name));
      if (i >= 0) roleDiffers.push(`${t.role} "${t.name}" is ${pool[i].role} in ours`);
    }
    if (i < 0) missing.push(t);
    else used.add(i);
  }
  return { missing, roleDiffers };
}

// Playwright's own 'networkidle' never comes: our client keeps a long-poll open on
// /__mindstudio_dev__/commands. Idle here = no other request in flight for 500 ms (at most 10 s).
const inflight = new Map();
function trackRequests(page) {
  inflight.clear();
  const agent = (r) => r.url().startsWith(prefix + '/');
  const done = (r) => { if (!agent(r)) inflight.delete(r); };
  page.on('request', (r) => { if (!agent(r)) inflight.set(r, true); });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
}
async function networkIdle(page) {
  const deadline = Date.now() + 10000;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    if (inflight.size > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= 500) return;
    await sleep(50);
  }
}

const show = (t) => `${t.role}${t.name ? ` "${t.name}"` : ''}`;
const tok4 = (s) => Math.ceil(s.length / 4);
const o200k = (s) => (countO200k ? countO200k(s) : null);

const userDataDir = mkdtempSync(join(tmpdir(), 'pw-aria-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  ],
});
const rows = [];
const report = [];
let failed = false;
try {
  for (const name of fixtures) {
    // A fresh page per fixture, so Playwright's ref numbers start over as they would in a new session.
    const page = await context.newPage();
    for (const p of context.pages()) if (p !== page) await p.close();
    const hasAi = typeof page.ariaSnapshot === 'function';
    trackRequests(page);
    const url = `${base}/snapshot/${name}.html`;
    await page.goto(url, { waitUntil: 'load' });
    await networkIdle(page);
    // The wasm client has started (`h` is set by the client, as in browser-tests' client_id()).
    const clientId = await page.waitForFunction(
      () => { const g = window.__browserAgent; return g && g.h ? g.clientId : null; },
      null,
      { timeout: 15000, polling: 50 },
    ).then((h) => h.jsonValue());
    for (let i = 0; ; i++) {
      const pages = await getJson(`${prefix}/page`);
      if ((pages.pages || []).some((p) => p.clientId === clientId)) break;
      if (i > 150) throw new Error(`${name}: client ${clientId} never listed by GET /page`);
      await sleep(100);
    }

    let t0 = performance.now();
    const pwDefault = await page.locator('body').ariaSnapshot();
    const pwDefaultMs = performance.now() - t0;
    // The same default mode for the whole page: it stitches frames in, which the body locator does not.
    const pwPage = typeof page.ariaSnapshot === 'function' ? await page.ariaSnapshot() : null;
    let pwAi = null;
    let pwAiMs = null;
    if (hasAi) {
      t0 = performance.now();
      pwAi = await page.ariaSnapshot({ mode: 'ai' });
      pwAiMs = performance.now() - t0;
    }
    t0 = performance.now();
    // `full=1`: everything, as Playwright's snapshots are (the default is cut to 8,000 tokens).
    const snap = await getJson(`${prefix}/snapshot?client=${encodeURIComponent(clientId)}&full=1`);
    const oursMs = performance.now() - t0;
    const ours = snap.snapshot;
    if (snap.clientId && snap.clientId !== clientId) throw new Error(`${name}: snapshot came from ${snap.clientId}`);

    if (outDir) {
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, `${name}.ours.txt`), ours + '\n');
      writeFileSync(join(outDir, `${name}.pw.yaml`), pwDefault + '\n');
      if (pwAi !== null) writeFileSync(join(outDir, `${name}.pw-ai.yaml`), pwAi + '\n');
      if (pwPage !== null) writeFileSync(join(outDir, `${name}.pw-page.yaml`), pwPage + '\n');
    }

    const oursNodes = parseNodes(ours, { playwright: false });
    const defNodes = parseNodes(pwDefault, { playwright: true });
    const aiNodes = pwAi !== null ? parseNodes(pwAi, { playwright: true }) : [];
    const isInteractive = (n) => INTERACTIVE.has(n.role);
    // The reference set: Playwright AI mode's ref'd interactive nodes (visible, receive pointer
    // events); without AI mode, every interactive node of the default snapshot.
    const theirs = pwAi !== null ? aiNodes.filter((n) => n.ref && isInteractive(n)) : defNodes.filter(isInteractive);
    const cov = coverage(theirs, oursNodes);
    const covDefault = coverage(defNodes.filter(isInteractive), oursNodes);
    const oursRefd = oursNodes.filter((n) => n.ref && isInteractive(n));

    // Why an element is missing from ours: the issue's exclusions (aria-hidden, inert, our own
    // overlay) and the inertness a modal dialog gives the rest of the page.
    for (const t of cov.missing) {
      t.why = '?';
      if (!t.ref) continue;
      try {
        t.why = await page.locator(`aria-ref=${t.ref}`).evaluate((el) => {
          if (el.closest('[aria-hidden="true"]')) return 'aria-hidden';
          if (el.closest('[inert]')) return 'inert';
          if (el.closest('[id^="__browser-agent"]')) return 'our overlay';
          const modal = el.ownerDocument.querySelector('dialog:modal');
          if (modal && !modal.contains(el)) return 'behind a modal dialog (inert)';
          return 'not excluded by design';
        }, null, { timeout: 2000 });
      } catch (e) {
        t.why = `? (${String(e.message).split('\n')[0].slice(0, 80)})`;
      }
    }
    const gaps = cov.missing.filter((t) => t.why === 'not excluded by design' || t.why.startsWith('?'));
    if (gaps.length) failed = true;

    rows.push({
      name,
      ours: { chars: ours.length, lines: ours.split('\n').length, t4: tok4(ours), o: o200k(ours), ms: oursMs },
      def: { chars: pwDefault.length, lines: pwDefault.split('\n').length, t4: tok4(pwDefault), o: o200k(pwDefault), ms: pwDefaultMs },
      page: pwPage === null ? null : { chars: pwPage.length, t4: tok4(pwPage), o: o200k(pwPage) },
      ai: pwAi === null ? null : { chars: pwAi.length, lines: pwAi.split('\n').length, t4: tok4(pwAi), o: o200k(pwAi), ms: pwAiMs },
    });
    report.push({
      name,
      oursCounts: fmtCounts(countRoles(oursRefd, () => true)),
      theirCounts: fmtCounts(countRoles(theirs, () => true)),
      defCounts: fmtCounts(countRoles(defNodes, isInteractive)),
      pointer: {
        theirs: aiNodes.filter((n) => n.ref && n.pointer && !isInteractive(n)).length,
        ours: oursNodes.filter((n) => n.ref && n.role === 'clickable').length,
      },
      missing: cov.missing,
      roleDiffers: cov.roleDiffers,
      missingDefault: covDefault.missing
        .map(show)
        .filter((m) => !cov.missing.some((t) => show(t) === m)),
      gaps,
    });
    await page.close();
  }
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}

// ---- output -------------------------------------------------------------------------------
const ratio = (a, b) => (b ? (a / b).toFixed(2) : '—');
const withO = countO200k !== null;
const out = [];
out.push('### Size (tokens ≈ characters / 4' + (withO ? '; o200k = exact o200k_base count from gpt-tokenizer' : '') + ')');
out.push('');
const head = ['fixture', 'ours chars', 'ours tokens (chars/4)'];
if (withO) head.push('ours o200k');
head.push('Playwright chars', 'Playwright tokens (chars/4)');
if (withO) head.push('Playwright o200k');
head.push('ratio ours/PW (chars/4)');
if (withO) head.push('ratio ours/PW (o200k)');
const hasAiCol = rows.some((r) => r.ai);
if (hasAiCol) {
  head.push('PW AI chars', 'PW AI tokens (chars/4)');
  if (withO) head.push('PW AI o200k');
  head.push('ratio ours/PW AI (chars/4)');
  if (withO) head.push('ratio ours/PW AI (o200k)');
}
out.push('| ' + head.join(' | ') + ' |');
out.push('|' + head.map((_, i) => (i === 0 ? '---' : '---:')).join('|') + '|');
for (const r of rows) {
  const c = [r.name, r.ours.chars, r.ours.t4];
  if (withO) c.push(r.ours.o);
  c.push(r.def.chars, r.def.t4);
  if (withO) c.push(r.def.o);
  c.push(ratio(r.ours.t4, r.def.t4));
  if (withO) c.push(ratio(r.ours.o, r.def.o));
  if (hasAiCol) {
    if (r.ai) {
      c.push(r.ai.chars, r.ai.t4);
      if (withO) c.push(r.ai.o);
      c.push(ratio(r.ours.t4, r.ai.t4));
      if (withO) c.push(ratio(r.ours.o, r.ai.o));
    } else c.push(...head.slice(c.length).map(() => '—'));
  }
  out.push('| ' + c.join(' | ') + ' |');
}
out.push('');
out.push('PW = `page.locator(\'body\').ariaSnapshot()` (default mode); PW AI = `page.ariaSnapshot({mode: \'ai\'})` (what Playwright MCP sends; frames stitched in). Ours = `GET /__mindstudio_dev__/snapshot?client=<id>`.');
out.push('');
const paged = rows.filter((r) => r.page && r.page.chars !== r.def.chars);
if (paged.length) {
  out.push('Where Playwright\'s default snapshot of the whole page (`page.ariaSnapshot()`, frames stitched in) differs from the body\'s:');
  out.push('');
  out.push('| fixture | PW page chars | PW page tokens (chars/4) |' + (withO ? ' PW page o200k |' : '') + ' ratio ours/PW page (chars/4) |' + (withO ? ' ratio ours/PW page (o200k) |' : ''));
  out.push('|---|---:|---:|' + (withO ? '---:|' : '') + '---:|' + (withO ? '---:|' : ''));
  for (const r of paged) {
    const c = [r.name, r.page.chars, r.page.t4];
    if (withO) c.push(r.page.o);
    c.push(ratio(r.ours.t4, r.page.t4));
    if (withO) c.push(ratio(r.ours.o, r.page.o));
    out.push('| ' + c.join(' | ') + ' |');
  }
  out.push('');
}
out.push('### Time (ms, wall clock from this script; ours includes the HTTP round trip and the network-idle wait)');
out.push('');
out.push('| fixture | ours | PW | PW AI |');
out.push('|---|---:|---:|---:|');
for (const r of rows) {
  out.push(`| ${r.name} | ${r.ours.ms.toFixed(0)} | ${r.def.ms.toFixed(0)} | ${r.ai ? r.ai.ms.toFixed(0) : '—'} |`);
}
out.push('');
out.push('### Interactive elements');
out.push('');
out.push('Reference: interactive nodes (' + [...INTERACTIVE].join(', ') + ') that carry a ref in Playwright\'s AI snapshot, i.e. visible and receiving pointer events. Each must be a ref\'d node of ours with the same role and name. "PW default" counts every interactive node of the default snapshot (visibility not required). "pointer" = non-interactive nodes Playwright marks `[cursor=pointer]` with a ref vs our `clickable` nodes (informational: Playwright marks every pointer-cursor descendant; we keep only the outermost).');
out.push('');
out.push('| fixture | PW AI ref\'d interactive | ours ref\'d interactive | PW default interactive | pointer PW / ours | missing in ours | role differs |');
out.push('|---|---|---|---|---|---|---|');
for (const r of report) {
  const miss = r.missing.length ? r.missing.map((t) => `${show(t)} (${t.why})`).join('; ') : 'none';
  const diff = r.roleDiffers.length ? r.roleDiffers.join('; ') : '—';
  out.push(`| ${r.name} | ${r.theirCounts} | ${r.oursCounts} | ${r.defCounts} | ${r.pointer.theirs} / ${r.pointer.ours} | ${miss} | ${diff} |`);
}
const extra = report.filter((r) => r.missingDefault.length);
if (extra.length) {
  out.push('');
  out.push('Interactive nodes in Playwright\'s default snapshot (not ref\'d in its AI snapshot, so not visible or not hit-testable there) that have no ref\'d node in ours:');
  out.push('');
  for (const r of extra) out.push(`- ${r.name}: ${r.missingDefault.join('; ')}`);
}
const notSmaller = (pick) => rows.filter(pick).map((r) => r.name).join(', ') || 'none';
out.push('');
out.push('Fixtures where ours is not smaller than Playwright default: ' + notSmaller((r) => r.ours.t4 >= r.def.t4) + ' (chars/4)' +
  (withO ? '; ' + notSmaller((r) => r.ours.o >= r.def.o) + ' (o200k)' : '') + '.');
if (hasAiCol) {
  out.push('Fixtures where ours is not smaller than Playwright AI: ' + notSmaller((r) => r.ai && r.ours.t4 >= r.ai.t4) + ' (chars/4)' +
    (withO ? '; ' + notSmaller((r) => r.ai && r.ours.o >= r.ai.o) + ' (o200k)' : '') + '.');
}
out.push('Fixtures missing a visible interactive element that the issue does not exclude: ' +
  (report.filter((r) => r.gaps.length).map((r) => `${r.name} (${r.gaps.map(show).join('; ')})`).join(', ') || 'none') + '.');
out.push('Fixtures where Playwright lists an element ours leaves out by design: ' +
  (report.filter((r) => r.missing.length > r.gaps.length).map((r) => r.name).join(', ') || 'none') + '.');
console.log(out.join('\n'));
process.exitCode = failed ? 1 : 0;
