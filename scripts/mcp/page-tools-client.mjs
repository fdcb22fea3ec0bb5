#!/usr/bin/env node
// The page's own tools through an MCP client nobody here wrote: the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json) over streamable HTTP. Connects to URL, lists
// the page tools (named page_…), calls the one ending in _NAME with ARGS (JSON), waits until the
// SDK's GET event stream is primed (it asks again with a Last-Event-ID), then has the page run
// SCRIPT (browser_run evaluate, on CLIENT) and waits for notifications/tools/list_changed; lists
// again. Prints one JSON object; exit code 1 when a call throws or no notification comes.
//
// Usage: scripts/mcp/setup node && node scripts/mcp/page-tools-client.mjs URL CLIENT NAME 'ARGS' 'SCRIPT'
import { need } from './node-deps.mjs';

const { Client } = need('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = need('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ToolListChangedNotificationSchema } = need('@modelcontextprotocol/sdk/types.js');

const [url, client, name, argsJson, script] = process.argv.slice(2);
if (!url || !client || !name || !argsJson || !script) {
  console.error("usage: page-tools-client.mjs URL CLIENT NAME 'ARGS' 'SCRIPT'");
  process.exit(2);
}
// A bound, not a timing: an answer that never comes fails the run instead of hanging it.
const within = (what, promise) =>
  Promise.race([promise, new Promise((_, no) => setTimeout(() => no(new Error(`no ${what} within 30 s`)), 30000))]);

let primed;
const primedOnce = new Promise((yes) => (primed = yes));
// The SDK's own fetch, watched: a GET with a Last-Event-ID means the priming event arrived.
const watched = (input, init) => {
  const headers = new Headers(init?.headers);
  if ((init?.method ?? 'GET') === 'GET' && headers.get('last-event-id')) primed();
  return fetch(input, init);
};
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: watched });
const mcp = new Client({ name: 'browser-agent-page-tools-ts', version: '1.0.0' });
let changed;
const changedOnce = new Promise((yes) => (changed = yes));
mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
const pageTools = async () => (await mcp.listTools()).tools.filter((t) => t.name.startsWith('page_'));
const out = { sdk: '@modelcontextprotocol/sdk' };
try {
  await mcp.connect(transport);
  out.listChanged = mcp.getServerCapabilities()?.tools?.listChanged ?? null;
  const before = await pageTools();
  out.before = before.map((t) => t.name);
  const tool = before.find((t) => t.name.endsWith('_' + name));
  out.description = tool?.description ?? null;
  const result = await mcp.callTool({ name: tool.name, arguments: JSON.parse(argsJson) });
  out.called = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
  await within('primed event stream', primedOnce);
  await mcp.callTool({ name: 'browser_run', arguments: { client, steps: [{ command: 'evaluate', script }] } });
  await within('notifications/tools/list_changed', changedOnce);
  out.notified = true;
  out.after = (await pageTools()).map((t) => t.name);
} catch (e) {
  out.error = String(e?.stack ?? e);
}
await mcp.close().catch(() => {});
console.log(JSON.stringify(out));
process.exit(out.error ? 1 : 0);
