export function start() {
wasm.Tb();
}
function __wbg_get_imports() {
const import0 = {
__proto__: null,
Eb: function(arg0) {
const v = arg0;
const ret = typeof(v) === 'boolean' ? v : undefined;
return isLikeNone(ret) ? 0xFFFFFF : ret ? 1 : 0;
},
yb: function(arg0) {
const ret = typeof(arg0) === 'bigint';
return ret;
},
wb: function(arg0) {
const ret = !arg0;
return ret;
},
Fb: function(arg0) {
const ret = typeof(arg0) === 'function';
return ret;
},
vb: function(arg0) {
const ret = arg0 === null;
return ret;
},
zb: function(arg0) {
const val = arg0;
const ret = typeof(val) === 'object' && val !== null;
return ret;
},
Ab: function(arg0) {
const ret = typeof(arg0) === 'string';
return ret;
},
Bb: function(arg0) {
const ret = typeof(arg0) === 'symbol';
return ret;
},
Gb: function(arg0) {
const ret = arg0 === undefined;
return ret;
},
xb: function(arg0, arg1) {
const ret = arg0 === arg1;
return ret;
},
Cb: function(arg0, arg1) {
const obj = arg1;
const ret = typeof(obj) === 'number' ? obj : undefined;
getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
},
Db: function(arg0, arg1) {
const obj = arg1;
const ret = typeof(obj) === 'string' ? obj : undefined;
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
ub: function(arg0, arg1) {
throw new Error(getStringFromWasm0(arg0, arg1));
},
Hb: function(arg0) {
arg0._wbg_cb_unref();
},
Aa: function(arg0) {
arg0.abort();
},
o: function(arg0, arg1, arg2) {
addEventListener(getStringFromWasm0(arg0, arg1), arg2);
},
e: function(arg0, arg1, arg2) {
addEventListener(getStringFromWasm0(arg0, arg1), arg2);
},
f: function(arg0, arg1, arg2, arg3) {
document.addEventListener(getStringFromWasm0(arg0, arg1), arg2, arg3 !== 0);
},
K: function() { return handleError(function (arg0, arg1, arg2) {
const ret = Reflect.apply(arg0, arg1, arg2);
return ret;
}, arguments); },
Ca: function(arg0, arg1) {
const ret = arg0.assignedNodes(arg1);
return ret;
},
sa: function(arg0) {
const ret = arg0.body;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
Pa: function() { return handleError(function (arg0, arg1) {
const ret = arg0.call(arg1);
return ret;
}, arguments); },
B: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.call(arg1, arg2);
return ret;
}, arguments); },
C: function() { return handleError(function (arg0, arg1, arg2, arg3) {
const ret = arg0.call(arg1, arg2, arg3);
return ret;
}, arguments); },
n: function(arg0) {
clearTimeout(arg0);
},
_: function(arg0) {
const ret = arg0.clientHeight;
return ret;
},
Y: function(arg0) {
const ret = arg0.clientWidth;
return ret;
},
ma: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.closest(getStringFromWasm0(arg1, arg2));
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
}, arguments); },
qb: function(arg0, arg1) {
const ret = arg0.concat(arg1);
return ret;
},
L: function() { return handleError(function (arg0, arg1) {
const ret = Reflect.construct(arg0, arg1);
return ret;
}, arguments); },
Na: function(arg0, arg1) {
const ret = arg0.contains(arg1);
return ret;
},
q: function(arg0, arg1) {
const ret = arg1.content;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
s: function(arg0, arg1) {
const ret = arg1.cursor;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
t: function(arg0, arg1) {
const ret = arg1.display;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
N: function(arg0) {
const ret = arg0.document;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
Ra: function(arg0, arg1) {
const ret = encodeURIComponent(getStringFromWasm0(arg0, arg1));
return ret;
},
Ha: function(arg0) {
const ret = arg0.firstChild;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
ha: function(arg0) {
const ret = arg0.firstElementChild;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
Ya: function(arg0) {
const ret = Array.from(arg0);
return ret;
},
ia: function(arg0) {
const ret = arg0.getAttributeNames();
return ret;
},
$: function(arg0, arg1, arg2, arg3) {
const ret = arg1.getAttribute(getStringFromWasm0(arg2, arg3));
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
ka: function(arg0) {
const ret = arg0.getBoundingClientRect();
return ret;
},
p: function() { return handleError(function (arg0, arg1, arg2, arg3) {
const ret = arg0.getComputedStyle(arg1, arg2 === 0 ? undefined : getStringFromWasm0(arg2, arg3));
return ret;
}, arguments); },
Da: function(arg0, arg1, arg2) {
const ret = arg0.getElementById(getStringFromWasm0(arg1, arg2));
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
qa: function(arg0, arg1, arg2) {
const ret = arg0.getElementById(getStringFromWasm0(arg1, arg2));
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
b: function() { return handleError(function (arg0, arg1, arg2) {
const ret = sessionStorage.getItem(getStringFromWasm0(arg1, arg2));
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
}, arguments); },
H: function(arg0, arg1) {
const ret = Object.getOwnPropertyDescriptor(arg0, arg1);
return ret;
},
La: function(arg0) {
const ret = arg0.getRootNode();
return ret;
},
hb: function() { return handleError(function (arg0, arg1) {
const ret = Reflect.get(arg0, arg1);
return ret;
}, arguments); },
i: function(arg0, arg1, arg2, arg3) {
const ret = arg1.get(getStringFromWasm0(arg2, arg3));
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
F: function(arg0, arg1) {
const ret = arg0.get(arg1);
return ret;
},
jb: function() { return handleError(function (arg0, arg1) {
const ret = Reflect.get(arg0, arg1 >>> 0);
return ret;
}, arguments); },
v: function(arg0, arg1) {
const ret = arg0[arg1 >>> 0];
return ret;
},
u: function(arg0, arg1) {
const ret = arg0[arg1 >>> 0];
return ret;
},
aa: function(arg0, arg1, arg2) {
const ret = arg0.hasAttribute(getStringFromWasm0(arg1, arg2));
return ret;
},
da: function(arg0) {
const ret = arg0.hasAttributes();
return ret;
},
va: function() { return handleError(function (arg0) {
const ret = arg0.hasFocus();
return ret;
}, arguments); },
k: function(arg0) {
const ret = arg0.headers;
return ret;
},
S: function(arg0) {
const ret = arg0.height;
return ret;
},
ua: function(arg0) {
const ret = arg0.hidden;
return ret;
},
wa: function() { return handleError(function (arg0, arg1) {
const ret = arg1.href;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
}, arguments); },
la: function(arg0, arg1) {
const ret = arg1.id;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
sb: function(arg0, arg1, arg2, arg3) {
const ret = arg0.includes(getStringFromWasm0(arg1, arg2), arg3);
return ret;
},
A: function(arg0, arg1, arg2) {
const ret = arg0.indexOf(arg1, arg2);
return ret;
},
tb: function(arg0, arg1, arg2, arg3) {
const ret = arg0.indexOf(getStringFromWasm0(arg1, arg2), arg3);
return ret;
},
T: function(arg0) {
let result;
try {
result = arg0 instanceof Element;
} catch (_) {
result = false;
}
const ret = result;
return ret;
},
Fa: function(arg0) {
let result;
try {
result = arg0 instanceof Node;
} catch (_) {
result = false;
}
const ret = result;
return ret;
},
D: function(arg0) {
let result;
try {
result = arg0 instanceof Promise;
} catch (_) {
result = false;
}
const ret = result;
return ret;
},
M: function(arg0) {
let result;
try {
result = arg0 instanceof Window;
} catch (_) {
result = false;
}
const ret = result;
return ret;
},
Za: function(arg0) {
const ret = Array.isArray(arg0);
return ret;
},
Ia: function(arg0) {
const ret = arg0.isConnected;
return ret;
},
ab: function(arg0, arg1) {
const ret = Object.is(arg0, arg1);
return ret;
},
xa: function(arg0, arg1) {
const ret = arg0.item(arg1 >>> 0);
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
ya: function(arg0) {
const ret = arg0.length;
return ret;
},
z: function(arg0) {
const ret = arg0.length;
return ret;
},
rb: function(arg0) {
const ret = arg0.length;
return ret;
},
U: function(arg0, arg1) {
const ret = arg1.localName;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
O: function(arg0) {
const ret = arg0.location;
return ret;
},
na: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.matches(getStringFromWasm0(arg1, arg2));
return ret;
}, arguments); },
lb: function() {
const ret = new WeakMap();
return ret;
},
Va: function() {
const ret = new Array();
return ret;
},
za: function() { return handleError(function () {
const ret = new AbortController();
return ret;
}, arguments); },
_a: function(arg0, arg1) {
const ret = new Error(getStringFromWasm0(arg0, arg1));
return ret;
},
I: function(arg0, arg1) {
try {
var state0 = {a: arg0, b: arg1};
var cb0 = (arg0, arg1) => {
const a = state0.a;
state0.a = 0;
try {
return wasm_bindgen__convert__closures_____invoke__ha75d28fc75ac40da(a, state0.b, arg0, arg1);
} finally {
state0.a = a;
}
};
const ret = new Promise(cb0);
return ret;
} finally {
state0.a = 0;
}
},
bb: function() {
const ret = new Object();
return ret;
},
J: function(arg0, arg1) {
try {
var state0 = {a: arg0, b: arg1};
var cb0 = (arg0, arg1) => {
const a = state0.a;
state0.a = 0;
try {
return wasm_bindgen__convert__closures_____invoke__ha75d28fc75ac40da(a, state0.b, arg0, arg1);
} finally {
state0.a = a;
}
};
const ret = new Promise(cb0);
return ret;
} finally {
state0.a = 0;
}
},
ja: function(arg0) {
const ret = arg0.nextElementSibling;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
Ja: function(arg0) {
const ret = arg0.nextSibling;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
Oa: function(arg0) {
const ret = arg0.nodeType;
return ret;
},
Ga: function(arg0, arg1) {
const ret = arg1.nodeValue;
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
Sa: function() {
const ret = Date.now();
return ret;
},
Wa: function(arg0) {
const ret = Array.of(arg0);
return ret;
},
Xa: function(arg0, arg1) {
const ret = Array.of(arg0, arg1);
return ret;
},
V: function(arg0, arg1) {
const ret = arg1.outerHTML;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
kb: function() { return handleError(function (arg0) {
const ret = Reflect.ownKeys(arg0);
return ret;
}, arguments); },
Ma: function(arg0) {
const ret = arg0.parentElement;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
w: function(arg0, arg1) {
const ret = arg0.push(arg1);
return ret;
},
Ea: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.querySelectorAll(getStringFromWasm0(arg1, arg2));
return ret;
}, arguments); },
ra: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.querySelectorAll(getStringFromWasm0(arg1, arg2));
return ret;
}, arguments); },
ga: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.querySelectorAll(getStringFromWasm0(arg1, arg2));
return ret;
}, arguments); },
ea: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.querySelector(getStringFromWasm0(arg1, arg2));
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
}, arguments); },
pa: function() { return handleError(function (arg0, arg1, arg2) {
const ret = arg0.querySelector(getStringFromWasm0(arg1, arg2));
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
}, arguments); },
nb: function(arg0) {
const ret = arg0.queueMicrotask;
return ret;
},
mb: function(arg0) {
queueMicrotask(arg0);
},
Ua: function() {
const ret = Math.random();
return ret;
},
h: function() {
location.reload();
},
fa: function() { return handleError(function (arg0, arg1, arg2) {
arg0.removeAttribute(getStringFromWasm0(arg1, arg2));
}, arguments); },
ob: function(arg0, arg1, arg2, arg3, arg4) {
const ret = arg0.replaceAll(getStringFromWasm0(arg1, arg2), getStringFromWasm0(arg3, arg4));
return ret;
},
gb: function(arg0) {
const ret = Promise.resolve(arg0);
return ret;
},
ba: function(arg0) {
const ret = arg0.scrollHeight;
return ret;
},
X: function(arg0) {
const ret = arg0.scrollLeft;
return ret;
},
W: function(arg0) {
const ret = arg0.scrollTop;
return ret;
},
Z: function(arg0) {
const ret = arg0.scrollWidth;
return ret;
},
a: function() { return handleError(function (arg0, arg1, arg2) {
const ret = navigator.sendBeacon(getStringFromWasm0(arg0, arg1), arg2);
return ret;
}, arguments); },
ca: function() { return handleError(function (arg0, arg1, arg2, arg3, arg4) {
arg0.setAttribute(getStringFromWasm0(arg1, arg2), getStringFromWasm0(arg3, arg4));
}, arguments); },
m: function(arg0, arg1) {
const ret = setInterval(arg0, arg1);
return ret;
},
c: function() { return handleError(function (arg0, arg1, arg2, arg3) {
sessionStorage.setItem(getStringFromWasm0(arg0, arg1), getStringFromWasm0(arg2, arg3));
}, arguments); },
d: function(arg0, arg1) {
const ret = setTimeout(arg0, arg1);
return ret;
},
ib: function() { return handleError(function (arg0, arg1, arg2) {
const ret = Reflect.set(arg0, arg1, arg2);
return ret;
}, arguments); },
G: function(arg0, arg1, arg2) {
const ret = arg0.set(arg1, arg2);
return ret;
},
l: function(arg0, arg1) {
arg0.length = arg1 >>> 0;
},
x: function(arg0) {
const ret = arg0.shift();
return ret;
},
Ba: function(arg0) {
const ret = arg0.signal;
return ret;
},
y: function(arg0, arg1, arg2) {
const ret = arg0.slice(arg1 >>> 0, arg2 >>> 0);
return ret;
},
pb: function(arg0, arg1, arg2) {
const ret = arg0.slice(arg1 >>> 0, arg2 >>> 0);
return ret;
},
g: function(arg0, arg1, arg2) {
arg0.splice(arg1 >>> 0, arg2 >>> 0);
},
cb: function() {
const ret = typeof globalThis === 'undefined' ? undefined : globalThis;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
eb: function() {
const ret = typeof global === 'undefined' ? undefined : global;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
db: function() {
const ret = typeof self === 'undefined' ? undefined : self;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
fb: function() {
const ret = typeof window === 'undefined' ? undefined : window;
return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
},
j: function(arg0) {
const ret = arg0.status;
return ret;
},
Ta: function() { return handleError(function (arg0) {
const ret = JSON.stringify(arg0);
return ret;
}, arguments); },
oa: function(arg0, arg1) {
const ret = arg1.tagName;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
Ka: function(arg0, arg1) {
const ret = arg1.textContent;
var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.cc, wasm.dc);
var len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
E: function(arg0, arg1, arg2) {
const ret = arg0.then(arg1, arg2);
return ret;
},
Qa: function(arg0, arg1) {
const ret = arg0.then(arg1);
return ret;
},
ta: function(arg0, arg1) {
const ret = arg1.title;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
$a: function() { return handleError(function (arg0, arg1) {
const ret = arg0.toString(arg1);
return ret;
}, arguments); },
r: function(arg0, arg1) {
const ret = arg1.visibility;
const ptr1 = passStringToWasm0(ret, wasm.cc, wasm.dc);
const len1 = WASM_VECTOR_LEN;
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
},
R: function(arg0) {
const ret = arg0.width;
return ret;
},
P: function(arg0) {
const ret = arg0.x;
return ret;
},
Q: function(arg0) {
const ret = arg0.y;
return ret;
},
Jb: function(arg0, arg1) {
const ret = makeClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h8fbc0209a3db0bed);
return ret;
},
Kb: function(arg0, arg1) {
const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__he27ee5fa1f0266c8);
return ret;
},
Lb: function(arg0, arg1) {
const ret = makeClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__hea35341fc0496e53);
return ret;
},
Mb: function(arg0, arg1) {
const ret = makeClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__hfbfd87feb298c927);
return ret;
},
Nb: function(arg0, arg1) {
const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h75329c513a2952aa);
return ret;
},
Ob: function(arg0, arg1) {
const ret = makeClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h776e2ccd13819313);
return ret;
},
Pb: function(arg0, arg1) {
const ret = makeClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h63f635ea4569d846);
return ret;
},
Qb: function(arg0) {
const ret = arg0;
return ret;
},
Rb: function(arg0, arg1) {
const ret = getStringFromWasm0(arg0, arg1);
return ret;
},
Ib: function() {
const table = wasm.hc;
table.set(0, undefined);
table.set(1024, undefined);
table.set(1025, null);
table.set(1026, true);
table.set(1027, false);
},
};
return {
__proto__: null,
"a": import0,
};
}
function wasm_bindgen__convert__closures_____invoke__h75329c513a2952aa(arg0, arg1) {
wasm.bc(arg0, arg1);
}
function wasm_bindgen__convert__closures_____invoke__h63f635ea4569d846(arg0, arg1) {
wasm.ac(arg0, arg1);
}
function wasm_bindgen__convert__closures_____invoke__h776e2ccd13819313(arg0, arg1) {
const ret = wasm.$b(arg0, arg1);
return ret;
}
function wasm_bindgen__convert__closures_____invoke__hea35341fc0496e53(arg0, arg1, arg2) {
wasm._b(arg0, arg1, arg2);
}
function wasm_bindgen__convert__closures_____invoke__he27ee5fa1f0266c8(arg0, arg1, arg2) {
const ret = wasm.Zb(arg0, arg1, arg2);
if (ret[1]) {
throw takeFromExternrefTable0(ret[0]);
}
}
function wasm_bindgen__convert__closures_____invoke__ha75d28fc75ac40da(arg0, arg1, arg2, arg3) {
wasm.Yb(arg0, arg1, arg2, arg3);
}
function wasm_bindgen__convert__closures_____invoke__h8fbc0209a3db0bed(arg0, arg1, arg2, arg3) {
wasm.Xb(arg0, arg1, arg2, arg3);
}
function wasm_bindgen__convert__closures_____invoke__hfbfd87feb298c927(arg0, arg1, arg2) {
const ptr0 = passStringToWasm0(arg2, wasm.cc, wasm.dc);
const len0 = WASM_VECTOR_LEN;
const ret = wasm.Wb(arg0, arg1, ptr0, len0);
if (ret[2]) {
throw takeFromExternrefTable0(ret[1]);
}
return takeFromExternrefTable0(ret[0]);
}
function addToExternrefTable0(obj) {
const idx = wasm.gc();
wasm.hc.set(idx, obj);
return idx;
}
const CLOSURE_DTORS = (typeof FinalizationRegistry === 'undefined')
? { register: () => {}, unregister: () => {} }
: new FinalizationRegistry(state => wasm.ic(state.a, state.b));
let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.Sb.buffer)) {
cachedDataViewMemory0 = new DataView(wasm.Sb.buffer);
}
return cachedDataViewMemory0;
}
function getStringFromWasm0(ptr, len) {
ptr = ptr >>> 0;
return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}
let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
cachedUint8ArrayMemory0 = new Uint8Array(wasm.Sb.buffer);
}
return cachedUint8ArrayMemory0;
}
function handleError(f, args) {
try {
return f.apply(this, args);
} catch (e) {
const idx = addToExternrefTable0(e);
wasm.fc(idx);
}
}
function isLikeNone(x) {
return x === undefined || x === null;
}
function makeClosure(arg0, arg1, f) {
const state = { a: arg0, b: arg1, cnt: 1 };
const real = (...args) => {
state.cnt++;
try {
return f(state.a, state.b, ...args);
} finally {
real._wbg_cb_unref();
}
};
real._wbg_cb_unref = () => {
if (--state.cnt === 0) {
wasm.ic(state.a, state.b);
state.a = 0;
CLOSURE_DTORS.unregister(state);
}
};
CLOSURE_DTORS.register(real, state, state);
return real;
}
function makeMutClosure(arg0, arg1, f) {
const state = { a: arg0, b: arg1, cnt: 1 };
const real = (...args) => {
state.cnt++;
const a = state.a;
state.a = 0;
try {
return f(a, state.b, ...args);
} finally {
state.a = a;
real._wbg_cb_unref();
}
};
real._wbg_cb_unref = () => {
if (--state.cnt === 0) {
wasm.ic(state.a, state.b);
state.a = 0;
CLOSURE_DTORS.unregister(state);
}
};
CLOSURE_DTORS.register(real, state, state);
return real;
}
function passStringToWasm0(arg, malloc, realloc) {
if (realloc === undefined) {
const buf = cachedTextEncoder.encode(arg);
const ptr = malloc(buf.length, 1) >>> 0;
getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
WASM_VECTOR_LEN = buf.length;
return ptr;
}
let len = arg.length;
let ptr = malloc(len, 1) >>> 0;
const mem = getUint8ArrayMemory0();
let offset = 0;
for (; offset < len; offset++) {
const code = arg.charCodeAt(offset);
if (code > 0x7F) break;
mem[ptr + offset] = code;
}
if (offset !== len) {
if (offset !== 0) {
arg = arg.slice(offset);
}
ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
const ret = cachedTextEncoder.encodeInto(arg, view);
offset += ret.written;
ptr = realloc(ptr, len, offset, 1) >>> 0;
}
WASM_VECTOR_LEN = offset;
return ptr;
}
function takeFromExternrefTable0(idx) {
const value = wasm.hc.get(idx);
wasm.jc(idx);
return value;
}
let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
numBytesDecoded += bytes.length;
if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
numBytesDecoded = bytes.length;
}
return cachedTextDecoder.decode(bytes);
}
const cachedTextEncoder = new TextEncoder();
if (!('encodeInto' in cachedTextEncoder)) {
cachedTextEncoder.encodeInto = function (arg, view) {
const buf = cachedTextEncoder.encode(arg);
view.set(buf);
return {
read: arg.length,
written: buf.length
};
};
}
let WASM_VECTOR_LEN = 0;
let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
wasmInstance = instance;
wasm = instance.exports;
wasmModule = module;
cachedDataViewMemory0 = null;
cachedUint8ArrayMemory0 = null;
wasm.kc();
return wasm;
}
async function __wbg_load(module, imports) {
if (typeof Response === 'function' && module instanceof Response) {
if (!module.ok) {
throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
}
if (typeof WebAssembly.instantiateStreaming === 'function') {
try {
return await WebAssembly.instantiateStreaming(module, imports);
} catch (e) {
const validResponse = expectedResponseType(module.type);
if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);
} else { throw e; }
}
}
const bytes = await module.arrayBuffer();
return await WebAssembly.instantiate(bytes, imports);
} else {
const instance = await WebAssembly.instantiate(module, imports);
if (instance instanceof WebAssembly.Instance) {
return { instance, module };
} else {
return instance;
}
}
function expectedResponseType(type) {
switch (type) {
case 'basic': case 'cors': case 'default': return true;
}
return false;
}
}
function initSync(module) {
if (wasm !== undefined) return wasm;
if (module !== undefined) {
if (Object.getPrototypeOf(module) === Object.prototype) {
({module} = module)
} else {
console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
}
}
const imports = __wbg_get_imports();
if (!(module instanceof WebAssembly.Module)) {
module = new WebAssembly.Module(module);
}
const instance = new WebAssembly.Instance(module, imports);
return __wbg_finalize_init(instance, module);
}
let __wbg_init_promise;
async function __wbg_init(module_or_path) {
if (wasm !== undefined) return wasm;
if (__wbg_init_promise === undefined) {
__wbg_init_promise = __wbg_init_once(module_or_path);
__wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
}
return __wbg_init_promise;
}
async function __wbg_init_once(module_or_path) {
if (module_or_path !== undefined) {
if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
({module_or_path} = module_or_path)
} else {
console.warn('using deprecated parameters for the initialization function; pass a single object instead')
}
}
if (module_or_path === undefined) {
module_or_path = new URL('browser_agent_client_bg.wasm', import.meta.url);
}
const imports = __wbg_get_imports();
if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
module_or_path = fetch(module_or_path);
}
const { instance, module } = await __wbg_load(await module_or_path, imports);
return __wbg_finalize_init(instance, module);
}
export { initSync, __wbg_init as default };
