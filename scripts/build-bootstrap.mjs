// Builds the inline bootstrap: browser-agent-client/bootstrap/bootstrap.js (readable source) ->
// placeholders filled from the Rust constants that own them -> terser (pinned in
// scripts/install-tools) -> one ASCII line that is safe inside <script>.
//
//   node scripts/build-bootstrap.mjs OUT      (scripts/build-client calls it; run from the repo root)
//   node scripts/build-bootstrap.mjs --module SRC OUT
//       the same for a module the client loads on first use (the screenshot capture): an ES
//       module, placeholders filled from the same table, minified, banner-free.
//
// Deterministic: the same sources and terser version give the same bytes, so `build-client --check`
// can compare the output with the committed browser-agent-core/assets/bootstrap.js.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = process.cwd();
const moduleMode = process.argv[2] === '--module';
const src = moduleMode ? process.argv[3] : 'browser-agent-client/bootstrap/bootstrap.js';
const out = moduleMode ? process.argv[4] : process.argv[2];
const fail = (why) => {
    console.error('build-bootstrap: ' + why);
    process.exit(1);
};
if (!out || !src) fail('usage: node scripts/build-bootstrap.mjs OUT | --module SRC OUT');

const require = createRequire(path.join(root, 'tools/node/package.json'));
let terser;
try {
    terser = require('terser');
} catch {
    fail('terser missing in tools/node; run scripts/install-tools');
}

// Placeholder -> [file, `module::NAME` or `NAME`]: the one home of each value. `__NAME__` becomes
// the value as a JS literal; `__F_NAME__` (a property name) becomes the bare identifier.
// The protocol crate's source folder: a `module::NAME` is read from `module.rs`, a `NAME` from the
// one file there that defines it.
const PROTOCOL = 'browser-agent-protocol/src';
const CLIENT_BOOTSTRAP = 'browser-agent-client/src/bootstrap.rs';
// The page's own tools: the hands' module owns the global's fields for them.
const PAGE_TOOLS = 'browser-agent-client/src/commands/actions/page_tools.rs';
const PLACEHOLDERS = {
    __GLOBAL__: [CLIENT_BOOTSTRAP, 'GLOBAL'],
    __KIND_URGENT__: [CLIENT_BOOTSTRAP, 'URGENT'],
    __KIND_NAV__: [CLIENT_BOOTSTRAP, 'NAV'],
    __CONFIG_ATTR__: [PROTOCOL, 'CONFIG_ATTR'],
    __PROBE_PATH__: [PROTOCOL, 'PROBE_PATH'],
    __CONSOLE__: [PROTOCOL, 'entry_type::CONSOLE'],
    __ERROR__: [PROTOCOL, 'entry_type::ERROR'],
    __NETWORK__: [PROTOCOL, 'entry_type::NETWORK'],
    __WEBSOCKET__: [PROTOCOL, 'entry_type::WEBSOCKET'],
    __NAVIGATION__: [PROTOCOL, 'entry_type::NAVIGATION'],
    __F_CFG__: [CLIENT_BOOTSTRAP, 'CFG'],
    __F_CLIENT_ID__: [CLIENT_BOOTSTRAP, 'CLIENT_ID'],
    __F_QUEUE__: [CLIENT_BOOTSTRAP, 'QUEUE'],
    __F_DROPPED__: [CLIENT_BOOTSTRAP, 'DROPPED'],
    __F_ORIGINALS__: [CLIENT_BOOTSTRAP, 'ORIGINALS'],
    __F_HANDLER__: [CLIENT_BOOTSTRAP, 'HANDLER'],
    __F_STAMP__: [CLIENT_BOOTSTRAP, 'STAMP'],
    __F_INFLIGHT__: [CLIENT_BOOTSTRAP, 'INFLIGHT'],
    __F_LAST_ACTIVITY__: [CLIENT_BOOTSTRAP, 'LAST_ACTIVITY'],
    __F_TIMERS_DUE__: [CLIENT_BOOTSTRAP, 'TIMERS_DUE'],
    __F_HOVER_DUE__: [CLIENT_BOOTSTRAP, 'HOVER_DUE'],
    __F_FRAMES__: [CLIENT_BOOTSTRAP, 'FRAMES'],
    __SETTLE_MS__: [CLIENT_BOOTSTRAP, 'SETTLE_MS'],
    __SETTLE_FRAME_MS__: [CLIENT_BOOTSTRAP, 'SETTLE_FRAME_MS'],
    __SETTLE_ANIMATION_MS__: [CLIENT_BOOTSTRAP, 'SETTLE_ANIMATION_MS'],
    __HOVER_INTENT_MS__: [CLIENT_BOOTSTRAP, 'HOVER_INTENT_MS'],
    __F_SETTLE__: [CLIENT_BOOTSTRAP, 'SETTLE'],
    __F_BUSY__: [CLIENT_BOOTSTRAP, 'BUSY'],
    __DIALOG__: [PROTOCOL, 'entry_type::DIALOG'],
    __F_ATTACHED__: [CLIENT_BOOTSTRAP, 'ATTACHED'],
    __F_DIALOG_HANDLER__: [CLIENT_BOOTSTRAP, 'DIALOG_HANDLER'],
    __F_DIALOGS_OUTSIDE__: [CLIENT_BOOTSTRAP, 'DIALOGS_OUTSIDE'],
    __F_SKIP_BEFOREUNLOAD__: [CLIENT_BOOTSTRAP, 'SKIP_BEFOREUNLOAD'],
    __F_ORIGINAL_FETCH__: [CLIENT_BOOTSTRAP, 'original::FETCH'],
    __F_ORIGINAL_WARN__: [CLIENT_BOOTSTRAP, 'original::WARN'],
    __F_LOAD__: [CLIENT_BOOTSTRAP, 'LOAD'],
    __F_NOTES__: [CLIENT_BOOTSTRAP, 'NOTES_FN'],
    __F_GUARD__: [CLIENT_BOOTSTRAP, 'GUARD'],
    __F_CFG_NOTES__: [CLIENT_BOOTSTRAP, 'cfg::NOTES'],
    __F_CFG_NOTES_KEY__: [CLIENT_BOOTSTRAP, 'cfg::NOTES_KEY'],
    __ASSETS_DIR__: [PROTOCOL, 'ASSETS_DIR'],
    __LAZY_NOTES__: [PROTOCOL, 'lazy::NOTES'],
    __NOTES_DEFAULT_KEY__: [PROTOCOL, 'notes::DEFAULT_KEY'],
    __F_PRISTINE__: [CLIENT_BOOTSTRAP, 'PRISTINE'],
    __F_EVAL__: [CLIENT_BOOTSTRAP, 'EVAL'],
    __KEY_HEADER__: [PROTOCOL, 'KEY_HEADER'],
    __LOGS_PATH__: [PROTOCOL, 'LOGS_PATH'],
    __HEARTBEAT_INTERVAL_MS__: [PROTOCOL, 'HEARTBEAT_INTERVAL_MS'],
    __START_TIMEOUT_MS__: [PROTOCOL, 'CLIENT_START_TIMEOUT_MS'],
    __P_KEY__: [PROTOCOL, 'KEY_PARAM'],
    __P_CLIENT__: [PROTOCOL, 'param::CLIENT'],
    __P_PAGE__: [PROTOCOL, 'param::PAGE'],
    __P_TITLE__: [PROTOCOL, 'param::TITLE'],
    __P_PHASE__: [PROTOCOL, 'param::PHASE'],
    __P_VISIBLE__: [PROTOCOL, 'param::VISIBLE'],
    __P_REV__: [PROTOCOL, 'param::REV'],
    __P_ERROR__: [PROTOCOL, 'param::ERROR'],
    __P_STACK__: [PROTOCOL, 'param::STACK'],
    __SENSOR_ASSET__: [PROTOCOL, 'SENSOR_ASSET'],
    __F_FAIL__: [CLIENT_BOOTSTRAP, 'FAIL'],
    __F_TOOLS__: [PAGE_TOOLS, 'TOOLS'],
    __F_TOOLS_BEAT__: [PAGE_TOOLS, 'TOOLS_BEAT'],
};
// Values only modules use (the bootstrap must use every one of the table above).
const MODULE_ONLY = {
    __F_PSEUDO__: [CLIENT_BOOTSTRAP, 'PSEUDO'],
    __F_ONCLICK__: [CLIENT_BOOTSTRAP, 'ONCLICK'],
    __F_VITALS__: ['browser-agent-client/src/commands/actions/vitals.rs', 'VITALS'],
    __F_INPUTS__: ['browser-agent-client/src/source/profile.rs', 'INPUTS'],
    __NOTES_CHANNEL__: [PROTOCOL, 'notes::CHANNEL'],
    __F_STARTED__: [CLIENT_BOOTSTRAP, 'STARTED'],
    __F_CURSOR_MODE__: [CLIENT_BOOTSTRAP, 'CURSOR_MODE'],
    __F_TO_PARENT__: [CLIENT_BOOTSTRAP, 'TO_PARENT'],
    __F_CFG_NOTES_ORIGIN__: [CLIENT_BOOTSTRAP, 'cfg::NOTES_ORIGIN'],
    __UI_ATTR__: [PROTOCOL, 'UI_ATTR'],
    __F_CFG_CURSOR__: [CLIENT_BOOTSTRAP, 'cfg::CURSOR'],
    __F_CFG_CURSOR_NAME__: [CLIENT_BOOTSTRAP, 'cfg::CURSOR_NAME'],
    __KEY_HEADER__: [PROTOCOL, 'KEY_HEADER'],
    __CLIENT_PARAM__: [PROTOCOL, 'param::CLIENT'],
    __SCREENSHOTS_PATH__: [PROTOCOL, 'SCREENSHOTS_PATH'],
    __WIDTH__: [PROTOCOL, 'screenshot::param::WIDTH'],
    __HEIGHT__: [PROTOCOL, 'screenshot::param::HEIGHT'],
    __MS__: [PROTOCOL, 'screenshot::param::MS'],
    __METHOD__: [PROTOCOL, 'screenshot::param::METHOD'],
    __WARN__: [PROTOCOL, 'screenshot::param::WARN'],
    __PAGE__: [PROTOCOL, 'screenshot::param::PAGE'],
    __F_CFG_KEY__: [CLIENT_BOOTSTRAP, 'cfg::KEY'],
    __F_CFG_PREFIX__: [CLIENT_BOOTSTRAP, 'cfg::PREFIX'],
    __F_CFG_REV__: [CLIENT_BOOTSTRAP, 'cfg::REV'],
    __F_DESCRIBE__: [CLIENT_BOOTSTRAP, 'DESCRIBE_HOOK'],
    __LAZY_SCREENSHOT__: [PROTOCOL, 'lazy::SCREENSHOT'],
    __LAZY_SOURCE__: [PROTOCOL, 'lazy::SOURCE'],
    __NOTES_PATH__: [PROTOCOL, 'NOTES_PATH'],
    __NOTES_ENTER__: [PROTOCOL, 'notes::ENTER'],
    __NOTES_EXIT__: [PROTOCOL, 'notes::EXIT'],
    __NOTES_SCREENSHOT__: [PROTOCOL, 'notes::SCREENSHOT'],
    __NOTES_CURSOR_HIDE__: [PROTOCOL, 'notes::CURSOR_HIDE'],
    __NOTES_SCREENSHOT_RESULT__: [PROTOCOL, 'notes::SCREENSHOT_RESULT'],
    __MAX_NOTE_TEXT__: [PROTOCOL, 'notes::MAX_TEXT'],
    __MAX_NOTE_ELEMENTS__: [PROTOCOL, 'notes::MAX_ELEMENTS'],
    __F_HANDS__: [CLIENT_BOOTSTRAP, 'HANDS'],
    // The sensor's (browser-agent-client/sensor/sensor.js).
    __F_TAP__: [CLIENT_BOOTSTRAP, 'TAP'],
    __F_CLOSE__: [CLIENT_BOOTSTRAP, 'CLOSE'],
    __F_CFG_CLIENT__: [CLIENT_BOOTSTRAP, 'cfg::CLIENT'],
    __F_CFG_WASM__: [CLIENT_BOOTSTRAP, 'cfg::WASM'],
    __F_POLL_MS__: [CLIENT_BOOTSTRAP, 'POLL_MS'],
    __F_SNAPSHOT_HOOK__: [CLIENT_BOOTSTRAP, 'SNAPSHOT_HOOK'],
    __F_REF_HOOK__: [CLIENT_BOOTSTRAP, 'REF_HOOK'],
    __AGENT_HEADER__: [PROTOCOL, 'AGENT_HEADER'],
    __HANDOVER_HEADER__: [PROTOCOL, 'HANDOVER_HEADER'],
    __REV_HEADER__: [PROTOCOL, 'REV_HEADER'],
    __COMMANDS_PATH__: [PROTOCOL, 'COMMANDS_PATH'],
    __RESULTS_PATH__: [PROTOCOL, 'RESULTS_PATH'],
    __FLUSH_INTERVAL_MS__: [PROTOCOL, 'FLUSH_INTERVAL_MS'],
    __POLL_WAIT_MS__: [PROTOCOL, 'POLL_WAIT_MS'],
    __HANDOVER_WAIT_MS__: [PROTOCOL, 'HANDOVER_WAIT_MS'],
    __TAB_STORAGE_KEY__: [PROTOCOL, 'TAB_STORAGE_KEY'],
    __ROWS__: [PROTOCOL, 'ROWS'],
    __INTERACTION__: [PROTOCOL, 'entry_type::INTERACTION'],
    __DROPPED__: [PROTOCOL, 'entry_type::DROPPED'],
    __P_TAB__: [PROTOCOL, 'param::TAB'],
    __P_FOCUSED__: [PROTOCOL, 'param::FOCUSED'],
    __P_IFRAME__: [PROTOCOL, 'param::IFRAME'],
    __P_PARENT__: [PROTOCOL, 'param::PARENT'],
    __P_OPENER__: [PROTOCOL, 'param::OPENER'],
    __OPENER_STORAGE_KEY__: [PROTOCOL, 'OPENER_STORAGE_KEY'],
    __P_WAIT__: [PROTOCOL, 'param::WAIT'],
    __P_CLIENTS__: [PROTOCOL, 'param::CLIENTS'],
    __P_GONE__: [PROTOCOL, 'param::GONE'],
    __P_TOOLS__: [PROTOCOL, 'param::TOOLS'],
    __FIELD_TYPE__: [PROTOCOL, 'field::TYPE'],
    __FIELD_COUNT__: [PROTOCOL, 'field::COUNT'],
    __FIELD_EVENT__: [PROTOCOL, 'field::EVENT'],
    __FIELD_TARGET__: [PROTOCOL, 'field::TARGET'],
    __FIELD_TEXT__: [PROTOCOL, 'field::TEXT'],
    __FIELD_VALUE__: [PROTOCOL, 'field::VALUE'],
    __FIELD_KEY__: [PROTOCOL, 'field::KEY'],
    __FIELD_CLIENT__: [PROTOCOL, 'field::CLIENT'],
    __FIELD_ID__: [PROTOCOL, 'field::ID'],
    __FIELD_STEPS__: [PROTOCOL, 'field::STEPS'],
    __FIELD_INDEX__: [PROTOCOL, 'field::INDEX'],
    __FIELD_OFFSET__: [PROTOCOL, 'field::OFFSET'],
    __FIELD_COMMAND__: [PROTOCOL, 'field::COMMAND'],
    __FIELD_ERROR__: [PROTOCOL, 'field::ERROR'],
    __FIELD_SNAPSHOT__: [PROTOCOL, 'field::SNAPSHOT'],
    __FIELD_LOGS__: [PROTOCOL, 'field::LOGS'],
    __FIELD_DURATION__: [PROTOCOL, 'field::DURATION'],
};
// The module-only table may repeat a bootstrap placeholder (the sensor uses many of them).

if (moduleMode) Object.assign(PLACEHOLDERS, MODULE_ONLY);


// The value of `const NAME: TYPE = VALUE;` (a string or integer literal) in `file`, inside
// `mod module { … }` when the name is qualified.
function rustConst(file, qualified) {
    if (fs.statSync(path.join(root, file)).isDirectory()) return rustConst(...constFile(file, qualified));
    let text = fs.readFileSync(path.join(root, file), 'utf8');
    const parts = qualified.split('::');
    const name = parts.pop();
    for (const mod of parts) {
        const start = text.search(new RegExp('\\bmod ' + mod + '\\s*\\{'));
        if (start < 0) fail(`no module ${mod} in ${file}`);
        let depth = 0, i = text.indexOf('{', start);
        const from = i;
        for (; i < text.length; i++) {
            if (text[i] === '{') depth++;
            else if (text[i] === '}' && --depth === 0) break;
        }
        text = text.slice(from, i);
    }
    const found = [...text.matchAll(new RegExp('\\bconst ' + name + ':\\s*[^=]+=\\s*("(?:[^"\\\\]|\\\\.)*"|[\\d_]+)\\s*;', 'g'))];
    if (found.length !== 1) fail(`expected one const ${qualified} in ${file}, found ${found.length}`);
    return JSON.parse(found[0][1].replace(/^([\d_]+)$/, (n) => n.replace(/_/g, '')));
}

// In a crate's source folder, the file that owns `qualified` and its name there: `param::CLIENT` is
// `CLIENT` of `param.rs` (`screenshot::param::WIDTH` is `param::WIDTH` of `screenshot.rs`); a bare
// `NAME` is in the one file that declares `const NAME`.
function constFile(dir, qualified) {
    const [first, ...rest] = qualified.split('::');
    const own = path.join(dir, first + '.rs');
    if (rest.length && fs.existsSync(path.join(root, own))) return [own, rest.join('::')];
    const declares = new RegExp('\\bconst ' + qualified + ':');
    const files = fs
        .readdirSync(path.join(root, dir))
        .filter((f) => f.endsWith('.rs') && declares.test(fs.readFileSync(path.join(root, dir, f), 'utf8')));
    if (files.length !== 1) fail(`expected one file declaring ${qualified} in ${dir}, found ${files.length}`);
    return [path.join(dir, files[0]), qualified];
}

let source = fs.readFileSync(path.join(root, src), 'utf8');
for (const [placeholder, [file, name]] of Object.entries(PLACEHOLDERS)) {
    if (!source.includes(placeholder)) {
        // The bootstrap uses them all (a table entry nobody uses is a mistake); a module, some.
        if (moduleMode) continue;
        fail(`placeholder ${placeholder} is not used`);
    }
    const value = rustConst(file, name);
    const property = placeholder.startsWith('__F_');
    if (property && !/^[A-Za-z_$][\w$]*$/.test(value)) fail(`${name} = ${value} is not an identifier`);
    source = source.split(placeholder).join(property ? value : JSON.stringify(value));
}
const left = source.match(/__[A-Z_]+__/g);
if (left) fail('unknown placeholders: ' + [...new Set(left)].join(', '));

if (moduleMode) {
    const result = await terser.minify(source, {
        ecma: 2020,
        module: true,
        compress: { passes: 2 },
        mangle: true,
        format: { ascii_only: true, comments: false },
    });
    fs.writeFileSync(out, result.code + '\n');
    process.exit(0);
}

const result = await terser.minify(source, {
    ecma: 2017,
    compress: { passes: 2 },
    mangle: true,
    format: { ascii_only: true, comments: false },
});
const code = result.code + '\n';
const BANNER = '// Generated by scripts/build-client from browser-agent-client/bootstrap/bootstrap.js; do not edit.\n';
const lower = code.toLowerCase();
if (code.trimEnd().includes('\n')) fail('output is not one line');
if (lower.includes('</script') || lower.includes('<!--')) fail('output would end the inline <script>');
if (!/^[\x00-\x7f]*$/.test(code)) fail('output is not ASCII');
fs.writeFileSync(out, BANNER + code);
