#!/usr/bin/env node
// What other snapshot grammars would cost, in o200k tokens, on the same snapshots (issue 17's
// 0.75x goal): each variant rewrites our text (the golden files, or any snapshot files given) and
// counts it with gpt-tokenizer 4.0.0 (installed into tools/node by scripts/compare-playwright).
//
//   node scripts/token-variants.mjs [file...]   (default: the eight small goldens, and the
//                                                2,000-item list's full snapshot when
//                                                scripts/compare-playwright has written it)
//
// The variants only measure: none is a grammar this project writes. "no indent" loses the tree
// (which button belongs to which list item), "no refs" every target; they are bounds, not options.
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(root, 'tools/node/package.json'));
const { encode } = require('gpt-tokenizer/encoding/o200k_base');
const tokens = (s) => encode(s).length;

const REF = / \[ref=((?:f\d+)?e\d+)\]/g;
const variants = {
  'as written': (t) => t,
  '`[eN]` for `[ref=eN]`': (t) => t.replace(REF, ' [$1]'),
  'names unquoted': (t) => t.replace(/^(\s*(?:[a-z]+(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])*: )*[a-z]+) "((?:[^"\\]|\\.)*)"/gm, '$1 $2'),
  'both': (t) => variants['names unquoted'](variants['`[eN]` for `[ref=eN]`'](t)),
  'both, and no indent (no tree)': (t) => variants.both(t).replace(/^ +/gm, ''),
  'no refs (nothing to target)': (t) => t.replace(REF, ''),
};

const golden = path.join(root, 'browser-tests/golden');
const small = ['react', 'todo', 'settings', 'hidden', 'modal', 'table', 'shadow', 'iframe'];
const sets = [];
const args = process.argv.slice(2);
if (args.length) {
  sets.push({ name: args.join(', '), files: args });
} else {
  sets.push({ name: 'eight small goldens', files: small.map((n) => path.join(golden, `${n}.txt`)) });
  const big = path.join(root, 'target/compare-playwright/biglist.ours.txt');
  if (fs.existsSync(big)) sets.push({ name: '2,000-item list, full', files: [big] });
}

const header = ['variant', ...sets.map((s) => s.name), ...sets.map((s) => `${s.name} (ratio)`)];
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map((_, i) => (i ? '---:' : '---')).join('|')}|`);
const base = sets.map((s) => s.files.reduce((n, f) => n + tokens(fs.readFileSync(f, 'utf8')), 0));
for (const [name, rewrite] of Object.entries(variants)) {
  const counts = sets.map((s) => s.files.reduce((n, f) => n + tokens(rewrite(fs.readFileSync(f, 'utf8'))), 0));
  const ratios = counts.map((c, i) => (c / base[i]).toFixed(2));
  console.log(`| ${name} | ${counts.map((c) => c.toLocaleString('en-US')).join(' | ')} | ${ratios.join(' | ')} |`);
}
