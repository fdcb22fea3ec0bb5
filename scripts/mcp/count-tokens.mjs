#!/usr/bin/env node
// Counts o200k tokens (npm gpt-tokenizer, pinned in package.json) of what the MCP endpoint sends
// an agent: the compact JSON of the tools/list result, per tool, and a sample click answer. The
// inputs are dumped by the core tests (`cargo test -p browser-agent-core mcp`) into target/mcp/,
// and real click answers by the interop test (`cargo test -p browser-tests --test mcp_interop`).
//
// Usage: scripts/mcp/setup node && node scripts/mcp/count-tokens.mjs [dir]   (prints JSON)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { need, root } from './node-deps.mjs';

const { encode } = need('gpt-tokenizer/encoding/o200k_base');
const count = (text) => encode(text).length;
const dir = process.argv[2] ?? join(root, 'target', 'mcp');

const list = readFileSync(join(dir, 'tools-list.json'), 'utf8');
const click = readFileSync(join(dir, 'click-answer.txt'), 'utf8');
const tools = JSON.parse(list).tools;
const report = {
  tokenizer: 'o200k_base (gpt-tokenizer)',
  toolsList: { tools: tools.length, chars: list.length, tokens: count(list) },
  perTool: Object.fromEntries(tools.map((t) => [t.name, count(JSON.stringify(t))])),
  clickAnswer: { chars: click.length, tokens: count(click), text: click },
  // Real click answers from Chromium (browser-tests/tests/mcp_interop.rs), when it has run.
  interopClicks: Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.startsWith('interop-click-') && f.endsWith('.txt'))
      .map((f) => [f, count(readFileSync(join(dir, f), 'utf8'))]),
  ),
  budgets: { toolsList: 1000, clickAnswer: 120 },
  anchors: { 'Playwright MCP 0.0.83 tools/list': 4415, 'chrome-devtools-mcp 1.11.0 tools/list': 6551 },
};
console.log(JSON.stringify(report, null, 2));
