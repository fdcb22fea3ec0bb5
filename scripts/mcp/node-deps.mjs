// Loads the MCP scripts' npm dependencies from target/mcp-node (installed by scripts/mcp/setup),
// so nothing is installed into the repository itself.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, 'target', 'mcp-node');
if (!existsSync(join(dir, 'node_modules'))) {
  console.error(`${dir}/node_modules is missing: run scripts/mcp/setup node`);
  process.exit(2);
}
/** `require` resolving from target/mcp-node (the packages' CommonJS builds). */
export const need = createRequire(join(dir, 'package.json'));
