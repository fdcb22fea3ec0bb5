// ESLint for the client's JavaScript (scripts/js-check runs
// `eslint -c browser-agent-client/eslint.config.mjs`): `js.configs.recommended`, the rules that
// find mistakes (undefined names, unreachable code, duplicate keys…), and no style rule: the
// sources keep their own formatting. The packages come from tools/node (scripts/install-tools).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tools/node/package.json', import.meta.url));
const js = require('@eslint/js');
const globals = require('globals');

// The build-time placeholders are globals to the linter: the `__NAME__` literals declared in
// types/placeholders.d.ts (the `__F_…__` ones are property names, never bare identifiers).
const placeholders = Object.fromEntries(
    [...fs.readFileSync(new URL('./types/placeholders.d.ts', import.meta.url), 'utf8').matchAll(/^declare const (__\w+__)/gm)].map(
        (m) => [m[1], 'readonly'],
    ),
);

// An unused `catch (e)` binding or argument, and an empty `catch {}`, are how these files say
// "ignored" (a getter that throws, storage that is blocked); unused names elsewhere are reported.
const unused = ['error', { caughtErrors: 'none', args: 'none' }];
const empty = ['error', { allowEmptyCatch: true }];

export default [
    {
        // The client's sources: the lazily loaded modules and the sensor are ES modules.
        files: ['**/*.js'],
        ...js.configs.recommended,
        languageOptions: {
            ecmaVersion: 2022,
            sourceType: 'module',
            globals: { ...globals.browser, ...placeholders },
        },
        rules: { ...js.configs.recommended.rules, 'no-unused-vars': unused, 'no-empty': empty },
    },
    {
        // The inline bootstrap is a classic script (one IIFE inside the page's <script>).
        files: ['bootstrap/bootstrap.js'],
        languageOptions: { sourceType: 'script' },
    },
    {
        // The unit tests and their helpers run in node.
        files: ['js-tests/**/*.mjs', 'eslint.config.mjs'],
        ...js.configs.recommended,
        languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
        rules: { ...js.configs.recommended.rules, 'no-unused-vars': unused, 'no-empty': empty },
    },
];
