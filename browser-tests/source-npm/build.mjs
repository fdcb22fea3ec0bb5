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
// - Angular 22 and 21: the app's TypeScript compiled ahead of time by the version's own compiler
//   (`@angular/compiler-cli`'s `performCompilation`, ngtsc, as `ng build` does; its development
//   output keeps `ɵsetClassDebugInfo`), then bundled by esbuild with the version's linker run over
//   Angular's own packages, as the CLI's application builder does in development (`ngJitMode` and
//   `ngServerMode` false, `ngDevMode` left undefined: dev mode). 22 also once for production
//   (`ngDevMode` false, minified). Angular
//   21 is installed under the npm alias `@angular21/*`: its compiler's imports of `@angular/*` are
//   redirected there by a module hook, its TypeScript and the bundle by `paths` and `alias`.
// Each app is one classic script, `<out>/<page>.js`.
import { createRequire, register } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

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

/** Compiles `fixtures/angular/src` ahead of time with the Angular at `node_modules/<scope>` into
 * `<out>/<page>-ngc/src/*.js`; the path of its `main.js`. */
async function ngc(scope, page) {
    const cli = await import(pathToFileURL(path.join(modules, scope, 'compiler-cli/bundles/index.js')).href);
    const ts = require('typescript');
    const root = path.join(fixtures, 'angular');
    const outDir = path.join(out, page + '-ngc');
    const src = path.join(root, 'src');
    const { diagnostics } = cli.performCompilation({
        rootNames: fs.readdirSync(src).filter((f) => f.endsWith('.ts')).map((f) => path.join(src, f)),
        options: {
            rootDir: root,
            outDir,
            target: ts.ScriptTarget.ES2022,
            module: ts.ModuleKind.ES2022,
            moduleResolution: ts.ModuleResolutionKind.Bundler,
            paths: { '@angular/*': [path.join(modules, scope, '*')] },
            types: [],
            strict: true,
            skipLibCheck: true,
            strictTemplates: true,
        },
    });
    const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length) throw new Error(`${scope}: ${cli.formatDiagnostics(errors)}`);
    return path.join(outDir, 'src/main.js');
}

/** An esbuild plugin running the Angular linker of `node_modules/<scope>` (Babel, as the CLI
 * does) over Angular's own packages, which npm ships partially compiled (`ɵɵngDeclare…`). */
async function linker(scope) {
    const cli = path.join(modules, scope, 'compiler-cli');
    const load = (p) => import(pathToFileURL(p).href);
    const babel = await load(createRequire(path.join(cli, 'package.json')).resolve('@babel/core'));
    const { needsLinking } = await load(path.join(cli, 'bundles/linker/index.js'));
    const plugin = (await load(path.join(cli, 'bundles/linker/babel/index.js'))).default;
    const dir = path.join(modules, scope) + path.sep;
    return {
        name: 'angular-linker',
        setup(build) {
            build.onLoad({ filter: /\.m?js$/ }, async (args) => {
                if (!args.path.startsWith(dir)) return undefined;
                const source = fs.readFileSync(args.path, 'utf8');
                if (!needsLinking(args.path, source)) return undefined;
                const r = await babel.transformAsync(source, {
                    filename: args.path,
                    babelrc: false,
                    configFile: false,
                    compact: false,
                    plugins: [[plugin, { linkerJitMode: false, sourceMapping: false }]],
                });
                return { contents: r.code, loader: 'js', resolveDir: path.dirname(args.path) };
            });
        },
    };
}

// Angular 21's compiler imports `@angular/compiler`: its own, under the alias.
register(
    'data:text/javascript,' +
        encodeURIComponent(
            `export async function resolve(s, c, next) {
                if (s.startsWith('@angular/') && String(c.parentURL).includes('/node_modules/@angular21/')) s = '@angular21/' + s.slice(9);
                return next(s, c);
            }`,
        ),
);
const angular22 = await ngc('@angular', 'angular22');
const angular21 = await ngc('@angular21', 'angular21');
const link22 = await linker('@angular');
const link21 = await linker('@angular21');
const angular21Alias = Object.fromEntries(
    ['core', 'common', 'compiler', 'platform-browser'].map((p) => ['@angular/' + p, '@angular21/' + p]),
);

const dev = { 'process.env.NODE_ENV': '"development"' };
// What the Angular CLI's application builder defines for a browser build with AOT (`ngDevMode` only
// in production, as false).
const ngDev = { ngJitMode: 'false', ngServerMode: 'false' };
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
    { page: 'angular22', entry: angular22, define: ngDev, plugins: [link22] },
    { page: 'angular21', entry: angular21, define: ngDev, alias: angular21Alias, plugins: [link21] },
    {
        page: 'angular22-prod',
        entry: angular22,
        define: { ...ngDev, ngDevMode: 'false', ngI18nClosureMode: 'false' },
        minify: true,
        plugins: [link22],
    },
];
for (const { page, entry, ...options } of apps) {
    await esbuild.build({ ...common, ...options, entryPoints: [path.resolve(fixtures, entry)], outfile: path.join(out, page + '.js') });
}
