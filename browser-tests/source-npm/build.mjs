// Builds the source_locations fixtures (browser-tests/fixtures/source/*/src) as each framework's
// own tooling builds them for development, with the pinned packages of this folder:
//   node build.mjs <node_modules> <fixtures/source> <out>
// - React 18 and 19, Preact: esbuild's automatic JSX runtime with `jsxDev` (what Vite's React
//   plugin does in dev: jsxDEV with the source position), `process.env.NODE_ENV` development, an
//   inline source map (React 19 keeps owner stacks, not `_debugSource`; they point into the bundle).
//   React 18 also once for production (automatic runtime, minified), which keeps no locations.
// - Vue 3 and 2.7: each .vue compiled with the version's own `compiler-sfc` (script + template),
//   and `__file` set as @vitejs/plugin-vue and vue-loader set it in development.
// - Svelte 5 and 4: each .svelte compiled with the version's compiler, `dev: true`.
// Each app is one classic script, `<out>/<page>.js`.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const [modules, fixtures, out] = process.argv.slice(2).map((p) => path.resolve(p));
const require = createRequire(path.join(modules, 'noop.js'));
const esbuild = require('esbuild');
fs.mkdirSync(out, { recursive: true });

/** An esbuild plugin compiling `.vue` files with `compiler` (a compiler-sfc module). */
function vue(compiler, two) {
    return {
        name: 'vue',
        setup(build) {
            build.onLoad({ filter: /\.vue$/ }, (args) => {
                const source = fs.readFileSync(args.path, 'utf8');
                const id = 'v' + path.basename(args.path, '.vue').toLowerCase();
                const { descriptor } = two
                    ? { descriptor: compiler.parse({ source, filename: args.path }) }
                    : compiler.parse(source, { filename: args.path });
                const script = compiler.compileScript(descriptor, { id });
                const template = compiler.compileTemplate({
                    source: descriptor.template.content,
                    filename: args.path,
                    id,
                    compilerOptions: script.bindings ? { bindingMetadata: script.bindings } : {},
                });
                if (template.errors && template.errors.length) throw new Error(String(template.errors[0]));
                const code = [
                    script.content.replace('export default', 'const _sfc_main ='),
                    template.code.replace(/export function render/, 'function render').replace(/export \{[^}]*\}/, ''),
                    '_sfc_main.render = render;',
                    two ? '_sfc_main.staticRenderFns = staticRenderFns;' : '',
                    // As @vitejs/plugin-vue (and vue-loader, relative to the root) do in development.
                    `_sfc_main.__file = ${JSON.stringify(args.path)};`,
                    'export default _sfc_main;',
                ].join('\n');
                return { contents: code, loader: 'js', resolveDir: path.dirname(args.path) };
            });
        },
    };
}

/** An esbuild plugin compiling `.svelte` files with `compiler` in dev mode. */
function svelte(compiler) {
    return {
        name: 'svelte',
        setup(build) {
            build.onLoad({ filter: /\.svelte$/ }, (args) => {
                const source = fs.readFileSync(args.path, 'utf8');
                const r = compiler.compile(source, { filename: args.path, dev: true, generate: compiler.VERSION.startsWith('4') ? 'dom' : 'client', css: 'injected' });
                return { contents: r.js.code, loader: 'js', resolveDir: path.dirname(args.path) };
            });
        },
    };
}

const dev = { 'process.env.NODE_ENV': '"development"' };
const common = {
    bundle: true,
    format: 'iife',
    logLevel: 'warning',
    nodePaths: [modules],
    absWorkingDir: fixtures,
};
const apps = [
    { page: 'react18', entry: 'react/src/main.jsx', jsx: 'automatic', jsxDev: true, define: dev, sourcemap: 'inline' },
    {
        page: 'react19',
        entry: 'react/src/main.jsx',
        jsx: 'automatic',
        jsxDev: true,
        define: dev,
        sourcemap: 'inline',
        alias: { react: 'react19', 'react-dom': 'react-dom19' },
    },
    {
        page: 'react18-prod',
        entry: 'react/src/main.jsx',
        jsx: 'automatic',
        define: { 'process.env.NODE_ENV': '"production"' },
        minify: true,
    },
    {
        page: 'preact',
        entry: 'preact/src/main.jsx',
        jsx: 'automatic',
        jsxDev: true,
        jsxImportSource: 'preact',
        define: dev,
        sourcemap: 'inline',
    },
    {
        page: 'vue3',
        entry: 'vue3/src/main.js',
        define: { ...dev, __VUE_OPTIONS_API__: 'true', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
        plugins: [vue(require('vue/compiler-sfc'), false)],
    },
    {
        page: 'vue2',
        entry: 'vue2/src/main.js',
        define: dev,
        alias: { vue: 'vue2' },
        plugins: [vue(require('vue2/compiler-sfc'), true)],
    },
    {
        page: 'svelte5',
        entry: 'svelte5/src/main.js',
        conditions: ['development', 'browser'],
        define: dev,
        plugins: [svelte(require('svelte/compiler'))],
    },
    {
        page: 'svelte4',
        entry: 'svelte4/src/main.js',
        conditions: ['development', 'browser'],
        define: dev,
        alias: { svelte: 'svelte4' },
        plugins: [svelte(require('svelte4/compiler'))],
    },
];
for (const { page, entry, ...options } of apps) {
    await esbuild.build({ ...common, ...options, entryPoints: [path.join(fixtures, entry)], outfile: path.join(out, page + '.js') });
}
