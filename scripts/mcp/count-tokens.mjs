#!/usr/bin/env node
// Counts o200k tokens (npm gpt-tokenizer, pinned in package.json) of what the MCP endpoint sends
// an agent: the compact JSON of the tools/list result, per tool, and click answers.
//
// Inputs, in target/mcp/ (or DIR): tools-list.json and click-answer.txt, dumped by the core tests
// (`cargo test -p browser-agent-core mcp`), and interop-click-*.txt, real answers from Chromium
// dumped by `cargo test -p browser-tests --test mcp_interop`. With --url, the tools/list result is
// fetched from that running endpoint instead (exactly the bytes it answers).
//
// Usage: scripts/mcp/setup node && node scripts/mcp/count-tokens.mjs [--url URL] [DIR]   (prints JSON)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { need, root } from './node-deps.mjs';

const { encode } = need('gpt-tokenizer/encoding/o200k_base');
const count = (text) => encode(text).length;

const args = process.argv.slice(2);
const at = args.indexOf('--url');
const url = at >= 0 ? args.splice(at, 2)[1] : undefined;
const dir = args[0] ?? join(root, 'target', 'mcp');
const read = (name) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);

let list;
if (url) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const body = await res.json();
  if (!res.ok || !body.result) throw new Error(`tools/list at ${url}: ${res.status} ${JSON.stringify(body)}`);
  list = JSON.stringify(body.result);
} else {
  list = read('tools-list.json');
  if (!list) throw new Error(`no ${join(dir, 'tools-list.json')}: run cargo test -p browser-agent-core mcp, or pass --url`);
}
const tools = JSON.parse(list).tools;
const click = read('click-answer.txt');
const report = {
  tokenizer: 'o200k_base (gpt-tokenizer)',
  source: url ?? join(dir, 'tools-list.json'),
  toolsList: { tools: tools.length, chars: list.length, tokens: count(list) },
  perTool: Object.fromEntries(tools.map((t) => [t.name, count(JSON.stringify(t))])),
  clickAnswer: click === undefined ? null : { chars: click.length, tokens: count(click), text: click },
  interopClicks: existsSync(dir)
    ? Object.fromEntries(
        readdirSync(dir)
          .filter((f) => f.startsWith('interop-click-') && f.endsWith('.txt'))
          .map((f) => [f, count(readFileSync(join(dir, f), 'utf8'))]),
      )
    : {},
  budgets: { toolsList: 1000, clickAnswer: 120 },
  anchors: { 'Playwright MCP 0.0.83 tools/list': 4415, 'chrome-devtools-mcp 1.11.0 tools/list': 6551 },
};
console.log(JSON.stringify(report, null, 2));
