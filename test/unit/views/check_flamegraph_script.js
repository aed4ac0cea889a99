// Runs the flame graph's inline script against a small stand-in for the
// browser's DOM (no jsdom here) and checks hover, zoom, search and reset.
//   node check_flamegraph_script.js FLAMEGRAPH.svg FRAME_TO_ZOOM [EXPECTED_SHARE]
// EXPECTED_SHARE: what searching ^cudaLaunchKernel$ must show, e.g. "63.6".
"use strict";
const fs = require("fs");
const vm = require("vm");

const svgText = fs.readFileSync(process.argv[2], "utf8");
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
  .replace(/&apos;/g, "'").replace(/&amp;/g, "&");
const attrs = (text) => {
  const out = {};
  for (const m of text.matchAll(/([\w-]+)="([^"]*)"/g)) out[m[1]] = unescape(m[2]);
  return out;
};

class Node {
  constructor(tag, attributes, text) {
    this.tag = tag;
    this.attributes = attributes || {};
    this.children = [];
    this.parentNode = null;
    this.style = {};
    this.listeners = {};
    this.textContent = text === undefined ? "" : text;
    const self = this;
    this.firstChild = {
      get nodeValue() { return self.textContent; },
      set nodeValue(v) { self.textContent = v; },
    };
  }
  add(child) { child.parentNode = this; this.children.push(child); return child; }
  getAttribute(name) { return name in this.attributes ? String(this.attributes[name]) : null; }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  addEventListener(type, fn) { this.listeners[type] = fn; }
  matches(selector) {
    if (selector === "g.f") return this.tag === "g" && this.attributes.class === "f";
    return this.tag === selector;
  }
  querySelectorAll(selector) {
    const out = [];
    const walk = (n) => { for (const c of n.children) { if (c.matches(selector)) out.push(c); walk(c); } };
    walk(this);
    return out;
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
  closest(selector) { for (let n = this; n; n = n.parentNode) if (n.matches && n.matches(selector)) return n; return null; }
}

// The document: the svg root, the named texts and every frame.
const root = new Node("svg", attrs(svgText.match(/<svg [^>]*>/)[0]));
const byId = {};
for (const m of svgText.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)) {
  const a = attrs(m[1]);
  if (a.id) byId[a.id] = root.add(new Node("text", a, unescape(m[2])));
}
const frames = root.add(new Node("g", { id: "frames" }));
byId.frames = frames;
for (const m of svgText.matchAll(/<g class="f"><title>([^<]*)<\/title><rect ([^>]*)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g)) {
  const g = frames.add(new Node("g", { class: "f" }));
  g.add(new Node("title", {}, unescape(m[1])));
  const rect = g.add(new Node("rect", attrs(m[2])));
  if (rect.attributes.id) byId[rect.attributes.id] = rect;
  g.add(new Node("text", attrs(m[3]), unescape(m[4])));
}
let prompted = null;
const windowListeners = {};
const context = {
  document: { documentElement: root, getElementById: (id) => byId[id] || null },
  window: {
    addEventListener: (type, fn) => { windowListeners[type] = fn; },
    prompt: () => prompted,
    alert: () => {},
  },
  Math, parseFloat, RegExp,
};
vm.createContext(context);
const script = svgText.slice(svgText.indexOf("<![CDATA[") + 9, svgText.indexOf("]]>"));
vm.runInContext(script, context);
context.init();

const all = frames.querySelectorAll("g.f");
const name = (g) => { const t = g.querySelector("title").textContent; return t.substring(0, t.lastIndexOf(" (")); };
const find = (n) => all.find((g) => name(g) === n);
const x = (g) => parseFloat(g.querySelector("rect").getAttribute("x"));
const w = (g) => parseFloat(g.querySelector("rect").getAttribute("width"));
const width = parseFloat(root.getAttribute("width"));
check(all.length > 3, "frames parsed: " + all.length);

// Hover shows the title line.
const target = find(process.argv[3] || "forward");
check(target !== undefined, "target frame present");
frames.listeners.mouseover({ target: target.querySelector("rect") });
check(byId.details.textContent === target.querySelector("title").textContent, "hover shows the frame");

// Zoom: the target spans the width, its ancestors too (greyed), others hide.
const before = all.map((g) => [x(g), w(g)]);
frames.listeners.click({ target: target.querySelector("rect") });
check(Math.abs(x(target) - 10) < 1e-6 && Math.abs(w(target) - (width - 20)) < 1e-6, "zoomed frame fills the width");
const allFrame = find("all");
check(allFrame.style.opacity === "0.5" && Math.abs(w(allFrame) - (width - 20)) < 1e-6, "root stays, greyed");
check(all.some((g) => g.style.display === "none"), "frames outside the zoom are hidden");
check(byId.unzoom.style.opacity === "1", "reset zoom shows");

// Escape resets; the geometry is back where it was.
windowListeners.keydown({ key: "Escape", preventDefault() {} });
check(all.every((g, i) => x(g) === before[i][0] && w(g) === before[i][1] && g.style.display === ""), "unzoom restores");

// Search: matches turn magenta, the share is the union of their spans.
prompted = "^cudaLaunchKernel$";
windowListeners.keydown({ key: "/", preventDefault() {} });
const matched = all.filter((g) => g.querySelector("rect").getAttribute("fill") === "rgb(230,0,230)");
check(matched.length > 0 && matched.every((g) => name(g) === "cudaLaunchKernel"), "search highlights the matches");
const shown = byId.matched.textContent;
check(/^Matched: \d+\.\d%$/.test(shown), "matched share shown: " + shown);
if (process.argv[4]) check(shown === "Matched: " + process.argv[4] + "%", "matched share " + shown);
byId.search.listeners.click();
check(all.every((g) => g.querySelector("rect").getAttribute("fill") === g.getAttribute("data-fill")), "search reset");
check(byId.matched.textContent === " ", "matched share cleared");

for (const f of failures) console.log("FAIL: " + f);
console.log(failures.length + " failures");
process.exit(failures.length ? 1 : 0);
