#!/usr/bin/env node
// An MCP client nobody here wrote: the official TypeScript SDK (@modelcontextprotocol/sdk, pinned
// in package.json) over streamable HTTP. Connects to URL, initializes, lists the tools, calls
// browser_logs, browser_snapshot, a click batch (STEPS, JSON) and browser_logs again, and prints
// what it got as one JSON object. Exit code 1 when any call throws.
//
// Usage: scripts/mcp/setup node && node scripts/mcp/ts-client.mjs URL 'STEPS' [BEARER_TOKEN]
import { need } from './node-deps.mjs';

const { Client } = need('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = need('@modelcontextprotocol/sdk/client/streamableHttp.js');

const [url, stepsJson, token] = process.argv.slice(2);
if (!url || !stepsJson) {
  console.error("usage: ts-client.mjs URL 'STEPS' [BEARER_TOKEN]");
  process.exit(2);
}
const text = (result) => ({
  text: (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
  isError: result.isError === true,
});

const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: 'browser-agent-interop-ts', version: '1.0.0' });
const out = { sdk: '@modelcontextprotocol/sdk' };
try {
  await client.connect(transport);
  out.protocolVersion = transport.protocolVersion ?? null;
  out.serverInfo = client.getServerVersion() ?? null;
  out.instructions = client.getInstructions() ?? null;
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => t.name);
  out.logs = text(await client.callTool({ name: 'browser_logs', arguments: { limit: 20 } }));
  out.snapshot = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
  out.click = text(await client.callTool({ name: 'browser_run', arguments: { steps: JSON.parse(stepsJson) } }));
  out.logsAfter = text(await client.callTool({ name: 'browser_logs', arguments: { limit: 20 } }));
  out.actions = text(await client.callTool({ name: 'browser_actions', arguments: {} }));
  out.badTool = await client
    .callTool({ name: 'browser_nope', arguments: {} })
    .then(() => null, (e) => ({ code: e.code ?? null, message: String(e.message) }));
  await client.close();
} catch (e) {
  out.error = String(e?.stack ?? e);
  console.log(JSON.stringify(out));
  process.exit(1);
}
console.log(JSON.stringify(out));
