// Renames wasm-bindgen's import and export names in the glue to what wasm-opt made of them
// (scripts/build-client runs it after `wasm-opt --minify-imports-and-exports-and-modules`), fails
// when a name is not found or is left over; then makes the glue independent of what the page did
// to the built-ins (see `pristine` below), minifies it with terser (pinned in scripts/install-tools)
// and adds the generated-file banner.
//
//   node scripts/rename-glue.mjs NAMES.json GLUE_IN.js WASM GLUE_OUT.js   (run from the repo root)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const [names, glueIn, wasmFile, glueOut] = process.argv.slice(2);
const fail = (why) => {
    console.error('build-client: renaming the glue: ' + why);
    process.exit(1);
};
const map = JSON.parse(fs.readFileSync(names, 'utf8'));
const mod = new WebAssembly.Module(fs.readFileSync(wasmFile));
const newModules = [...new Set(WebAssembly.Module.imports(mod).map((i) => i.module))];
const oldModules = [...new Set(map.imports.map(([m]) => m))];
if (newModules.length !== 1 || oldModules.length !== 1) fail('expected one import module');
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
let js = fs.readFileSync(glueIn, 'utf8');
const swap = (re, to, what) => {
    if (!re.test(js)) fail('not found: ' + what);
    js = js.replace(re, to);
};
swap(new RegExp('"' + esc(oldModules[0]) + '": import0', 'g'), JSON.stringify(newModules[0]) + ': import0', 'module');
for (const [, from, to] of map.imports) swap(new RegExp('^(\\s+)' + esc(from) + ':', 'gm'), '$1' + to + ':', from);
// (Some exports, such as wasm-bindgen's abort handler, are not used by this glue.)
for (const [from, to] of map.exports) js = js.replace(new RegExp('\\bwasm\\.' + esc(from) + '\\b', 'g'), 'wasm.' + to);
const left = js.match(/^\s+__wb\w*:|\bwasm\.\w{3,}\b/gm);
if (left) fail('left over: ' + left.join(', '));
const exported = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
for (const [, to] of map.exports) if (!exported.has(to)) fail('missing export ' + to);

// The glue runs long after the page's scripts, which may have replaced or patched the built-ins it
// calls (MooTools replaces `Array.from` and `window.Window`, Prototype.js `Function.prototype.bind`,
// others `fetch`, `JSON.stringify`, `Promise.resolve`, `TextDecoder`, `Function.prototype.apply`…).
// The bootstrap, which runs before them, keeps the originals in `window.__browserAgent.p` (its
// `KEPT` list); here every global the glue reads becomes a module constant taken from there, and
// every method call on a built-in's prototype a `Reflect.apply` of the kept method. The build fails
// when the glue reads a global the list does not name (add it to `KEPT` in bootstrap.js) or the
// list names one the glue does not use.
const root = process.cwd();
const require = createRequire(path.join(root, 'tools/node/package.json'));
let acorn, terser;
try {
    acorn = require('acorn');
    terser = require('terser');
} catch {
    fail('acorn or terser missing in tools/node; run scripts/install-tools');
}
const bootstrapRs = fs.readFileSync(path.join(root, 'browser-agent-client/src/bootstrap.rs'), 'utf8');
const rustName = (name) => (bootstrapRs.match(new RegExp('\\bconst ' + name + ': &str = "(\\w+)";')) || fail('no ' + name + ' in bootstrap.rs'))[1];
const bootstrapJs = fs.readFileSync(path.join(root, 'browser-agent-client/bootstrap/bootstrap.js'), 'utf8');
const keptSource = bootstrapJs.match(/var KEPT =\s*((?:'[^']*'\s*\+?\s*)+);/) || fail('no KEPT list in bootstrap.js');
const KEPT = new Set(eval(keptSource[1]).split(' '));
// Globals the page cannot replace ([LegacyUnforgeable] or non-writable) or that are only tested with typeof.
const SAFE = new Set(['window', 'document', 'location', 'undefined', 'globalThis', 'self', 'global', 'sessionStorage']);

const ast = acorn.parse(js, { ecmaVersion: 'latest', sourceType: 'module' });
const declared = new Set();
const edits = [];
const used = new Set();
const alias = (name) => '$' + name.replace(/\./g, '_');
const keep = (name, node) => {
    if (!KEPT.has(name)) fail(`the glue uses ${name}, which the bootstrap does not keep: add it to KEPT in browser-agent-client/bootstrap/bootstrap.js`);
    used.add(name);
    return alias(name);
};
const text = (node) => js.slice(node.start, node.end);
// Every node, with its parent and the key it sits under.
function walk(node, parent, key, f) {
    if (!node || typeof node.type != 'string') return;
    if (f(node, parent, key) === false) return;
    for (const k of Object.keys(node)) {
        const v = node[k];
        if (Array.isArray(v)) v.forEach((c) => walk(c, node, k, f));
        else if (v && typeof v.type == 'string') walk(v, node, k, f);
    }
}
const bind = (id) => id && id.type == 'Identifier' && declared.add(id.name);
walk(ast, null, null, (n) => {
    if (n.type == 'VariableDeclarator') walk(n.id, null, null, (p) => void (p.type == 'Identifier' && declared.add(p.name)));
    if (/Function/.test(n.type)) {
        bind(n.id);
        n.params.forEach((p) => walk(p, null, null, (q) => void (q.type == 'Identifier' && declared.add(q.name))));
    }
    if (n.type == 'CatchClause' && n.param) bind(n.param);
    if (n.type == 'ImportSpecifier' || n.type == 'ImportDefaultSpecifier') bind(n.local);
});
const isGlobal = (n) => n.type == 'Identifier' && !declared.has(n.name) && n.name != 'arguments';
const METHODS = {
    __proto__: null,
    push: 'Array.prototype.push',
    splice: 'Array.prototype.splice',
    shift: 'Array.prototype.shift',
    decode: 'TextDecoder.prototype.decode',
    encode: 'TextEncoder.prototype.encode',
    encodeInto: 'TextEncoder.prototype.encodeInto',
};
// Methods of arrays and strings alike: the kept one for an array, the receiver's own for a string.
const EITHER = { __proto__: null, slice: 'Array.prototype.slice', indexOf: 'Array.prototype.indexOf' };
const args = (call) => call.arguments.map(text).join(', ');
walk(ast, null, null, (n, parent, key) => {
    if (n.type == 'MetaProperty') return false;
    if (n.type == 'NewExpression' && n.arguments.length == 0 && isGlobal(n.callee) && (n.callee.name == 'Array' || n.callee.name == 'Object')) {
        edits.push([n.start, n.end, n.callee.name == 'Array' ? '[]' : '({})']);
        return false;
    }
    if (n.type == 'CallExpression' && n.callee.type == 'MemberExpression' && !n.callee.computed && n.callee.object.type == 'Identifier') {
        const recv = n.callee.object, method = n.callee.property.name;
        if ((method == 'call' || method == 'apply') && !isGlobal(recv)) {
            if (!n.arguments.length) fail('a ' + method + '() without a receiver: ' + text(n));
            const rest = method == 'call' ? '[' + n.arguments.slice(1).map(text).join(', ') + ']' : text(n.arguments[1]);
            edits.push([n.start, n.end, `${keep('Reflect.apply')}(${recv.name}, ${text(n.arguments[0])}, ${rest})`]);
            n.arguments.forEach((a) => walk(a, null, null, () => {}));
            return false;
        }
        const kept = METHODS[method] || EITHER[method];
        if (kept && !isGlobal(recv)) {
            const applied = `${keep('Reflect.apply')}(${keep(kept)}, ${recv.name}, [${args(n)}])`;
            edits.push([n.start, n.end, METHODS[method] ? applied : `(${keep('Array.isArray')}(${recv.name}) ? ${applied} : ${text(n)})`]);
            return false;
        }
    }
    if (n.type == 'MemberExpression' && !n.computed && isGlobal(n.object)) {
        const name = n.object.name + '.' + n.property.name;
        if (SAFE.has(n.object.name)) return false;
        edits.push([n.start, n.end, keep(name)]);
        return false;
    }
    if (isGlobal(n)) {
        const isKey = (parent.type == 'MemberExpression' && key == 'property' && !parent.computed) ||
            (parent.type == 'Property' && key == 'key' && !parent.computed) ||
            parent.type == 'ExportSpecifier';
        if (isKey) return;
        if (SAFE.has(n.name)) return;
        keep(n.name);
    }
});
// The sensor (browser-agent-client/sensor/sensor.js) takes its built-ins from the same list, as
// `K('name')`: each must be kept, and counts as used.
const sensorJs = fs.readFileSync(path.join(root, 'browser-agent-client/sensor/sensor.js'), 'utf8');
const bySensor = new Set([...sensorJs.matchAll(/\bK\('([^']+)'\)/g)].map((m) => m[1]));
for (const name of bySensor) {
    if (!KEPT.has(name)) fail(`the sensor uses K('${name}'), which the bootstrap does not keep: add it to KEPT in browser-agent-client/bootstrap/bootstrap.js`);
}
for (const name of KEPT) {
    if (!used.has(name) && !bySensor.has(name)) fail(`KEPT in bootstrap.js names ${name}, which neither the glue nor the sensor uses: remove it`);
}
edits.sort((a, b) => b[0] - a[0]);
for (let i = 1; i < edits.length; i++) if (edits[i][1] > edits[i - 1][0]) fail('overlapping rewrites at ' + edits[i][0]);
for (const [start, end, to] of edits) js = js.slice(0, start) + to + js.slice(end);
const decls = [...used].sort().map((n) => (n.includes('.') ? JSON.stringify(n) + ': ' + alias(n) : n));
js = `const { ${decls.join(', ')} } = window.${rustName('GLOBAL')}.${rustName('PRISTINE')};\n` + js;

const min = await terser.minify(js, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true, format: { comments: false } });
js = min.code;
// What the minified glue still reads from the page's globals: only the safe ones.
const check = await terser.minify(js, { module: true, compress: false, mangle: false, format: { ast: true, code: false } });
check.ast.figure_out_scope({ module: true });
const leaked = [...check.ast.globals.keys()].filter((g) => !SAFE.has(g));
if (leaked.length) fail('the glue still reads the page globals ' + leaked.join(', '));
js = '// Generated by scripts/build-client (wasm-bindgen glue); do not edit.\n' + js + '\n';
fs.writeFileSync(glueOut, js);
