// The client's JavaScript with its placeholders filled, unminified, for the unit tests.
//
// The filling is scripts/build-bootstrap.mjs's own, run as it is (`--module SRC OUT`: every
// placeholder of both tables is filled from the Rust constants), from a folder of links to the
// repository whose tools/node holds a pass-through `terser`: the output is the filled source,
// line for line. Nothing here repeats the placeholder table, so the tests see what the build sees.
//
//   import { filled } from './fill.mjs';  const text = filled('browser-agent-client/sensor/sensor.js');
//   node browser-agent-client/js-tests/fill.mjs SRC OUT
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(root, 'target/js-check');
const farm = path.join(work, 'root');

// The folder the build script runs in: every top-level entry of the repository linked, except
// tools/, whose node/node_modules/terser is a stub that returns the code it is given.
function prepare() {
    fs.rmSync(farm, { recursive: true, force: true });
    fs.mkdirSync(farm, { recursive: true });
    for (const name of fs.readdirSync(root)) {
        if (name == 'tools' || name == 'target' || name == '.git') continue;
        fs.symlinkSync(path.join(root, name), path.join(farm, name));
    }
    const terser = path.join(farm, 'tools/node/node_modules/terser');
    fs.mkdirSync(terser, { recursive: true });
    fs.writeFileSync(path.join(farm, 'tools/node/package.json'), '{"private": true}\n');
    fs.writeFileSync(path.join(terser, 'package.json'), '{"name": "terser", "main": "index.js"}\n');
    fs.writeFileSync(path.join(terser, 'index.js'), 'exports.minify = async (code) => ({ code });\n');
}

let prepared = false;

/** The source at `src` (relative to the repository) with its placeholders filled. */
export function filled(src) {
    if (!prepared) prepare();
    prepared = true;
    const out = path.join(work, 'filled', src);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    execFileSync(process.execPath, [path.join(root, 'scripts/build-bootstrap.mjs'), '--module', src, out], {
        cwd: farm,
        stdio: ['ignore', 'ignore', 'inherit'],
    });
    return fs.readFileSync(out, 'utf8');
}

/** `text` with its placeholders filled: `fillText('["__F_QUEUE__"]')` names the queue's field. */
export function fillText(text) {
    if (!prepared) prepare();
    prepared = true;
    fs.writeFileSync(path.join(farm, 'fill-input.js'), text);
    return filled('fill-input.js');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const [src, out] = process.argv.slice(2);
    fs.writeFileSync(out, filled(src));
}
