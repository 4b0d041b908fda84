// The lecture lab's page: it keeps the state (scenario, overrides, seed,
// B-side remedy) in the URL, asks the server to run it, and draws the
// answer. Nothing here simulates: every verdict comes from the server, or,
// in the exported lab, from the same server code compiled to WebAssembly
// and running in this page (static.js's window.labBackend).
"use strict";

const NS = "http://www.w3.org/2000/svg";
// The figures' palette (plots/style.go): Okabe–Ito without vermilion,
// which is kept for violations.
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#8C6D31", "#F0E442", "#555555"];
const RED = "#D7191C";
const DEBOUNCE_MS = 60;

const $ = (id) => document.getElementById(id);
const clientId = Math.random().toString(36).slice(2) + Date.now().toString(36);

const state = { s: "", sets: [], seed: "", ab: "", lecture: false, challenge: false, tour: "", step: 0 };
let catalog = [];
let tours = [];
let current = null;      // the last good answer
let cursor = 0;          // ns of true time
let view = null;         // [from, to] ns shown
let controller = null;   // the request in flight
let runSeq = 0;          // the latest run asked for; an older answer is dropped
let timer = 0;
let pendingSince = 0;    // performance.now() of the first input not yet drawn
let knobsFor = "";       // the scenario and overrides the knobs were drawn for
window.labStats = { runs: 0, answers: 0, latencies: [] }; // runs drawn; answers, refusals too

// ---- the API: the server's, or the exported lab's in the page ----

// api asks for target (api/run?..., relative to the page) and answers
// {ok, status, body} with the body decoded from JSON.
async function api(target, init) {
  if (window.labBackend) {
    const a = await window.labBackend.call(target, clientId);
    return { ok: a.status >= 200 && a.status < 300, status: a.status, body: JSON.parse(a.body) };
  }
  const r = await fetch(target, init);
  return { ok: r.ok, status: r.status, body: await r.json() };
}

// ---- state and the URL ----

function readURL() {
  const q = new URLSearchParams(location.search);
  state.s = q.get("s") || "gc-pause";
  state.sets = q.getAll("set");
  state.seed = q.get("seed") || "";
  state.ab = q.get("whatif") || "";
  state.lecture = q.get("lecture") === "1";
  state.challenge = q.get("challenge") === "1";
  state.tour = q.get("tour") || "";
  state.step = Math.max(0, (parseInt(q.get("step"), 10) || 1) - 1);
}

function query(extra) {
  const q = new URLSearchParams();
  q.set("s", state.s);
  for (const s of state.sets) q.append("set", s);
  if (state.seed !== "") q.set("seed", state.seed);
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  return q;
}

function permalinkQuery() {
  const q = query();
  if (state.ab) q.set("whatif", state.ab);
  if (state.lecture) q.set("lecture", "1");
  if (state.challenge) q.set("challenge", "1");
  if (state.tour) {
    q.set("tour", state.tour);
    q.set("step", String(state.step + 1));
  }
  return q;
}

function writeURL() {
  const url = location.pathname + "?" + permalinkQuery().toString();
  history.replaceState(null, "", url);
  $("permalink").href = url;
  $("download").href = "api/download?" + query().toString();
}

const keyOf = (set) => set.slice(0, set.indexOf("="));

function setOverride(key, value) {
  state.sets = state.sets.filter((s) => keyOf(s) !== key);
  state.sets.push(key + "=" + value);
}

// ---- formatting ----

function secs(ns) {
  const neg = ns < 0;
  let us = Math.round(Math.abs(ns) / 1000);
  const s = Math.floor(us / 1e6);
  const frac = String(us % 1e6).padStart(6, "0");
  return (neg ? "-" : "") + s + "." + frac + " s";
}

function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs, title) {
  const e = el("svg:" + tag, attrs);
  if (title) e.appendChild(el("svg:title", {}, title));
  return e;
}

// ---- the scenario list ----

async function loadCatalog() {
  const c = (await api("api/scenarios")).body;
  catalog = c.scenarios;
  tours = c.tours || [];
  drawTourPicker();
  const picker = $("picker");
  picker.textContent = "";
  const groups = { library: el("optgroup", { label: "library" }), dir: el("optgroup", { label: "your files (" + (c.dir || "--dir") + ")" }) };
  const broken = [];
  for (const e of catalog) {
    const o = el("option", { value: e.id }, e.name + (e.error ? " (does not load)" : ""));
    if (e.error) {
      o.disabled = true;
      broken.push(e);
    }
    groups[e.source].appendChild(o);
  }
  picker.appendChild(groups.library);
  if (groups.dir.children.length) picker.appendChild(groups.dir);
  const b = $("broken");
  b.textContent = "";
  const brokenTours = tours.filter((t) => t.error);
  b.hidden = broken.length === 0 && brokenTours.length === 0 && !c.dir_error;
  for (const t of brokenTours) {
    const p = el("p", { class: "broken-file" });
    p.appendChild(el("strong", {}, "tour " + t.id.replace(/^file:/, "") + " cannot be opened: "));
    p.appendChild(el("code", {}, t.error));
    b.appendChild(p);
  }
  if (c.dir_error) b.appendChild(el("p", {}, "--dir: " + c.dir_error));
  for (const e of broken) {
    const p = el("p", { class: "broken-file" });
    p.appendChild(el("strong", {}, e.name + " cannot be opened: "));
    p.appendChild(el("code", {}, e.error));
    b.appendChild(p);
  }
}

function showAbout() {
  const e = catalog.find((x) => x.id === state.s);
  $("picker").value = state.s;
  $("description").textContent = e ? e.description || "" : "";
  $("lesson").textContent = e ? e.lesson || "" : "";
  const d = e && e.debate;
  $("start-challenge").hidden = !(e && e.challenge);
  if (!(e && e.challenge)) state.challenge = false;
  drawChallenge();
  $("debate").hidden = !d;
  if (d) {
    $("claim-by").textContent = d.by.join(" and ") + " claims";
    $("claim-text").textContent = d.claim;
    $("answer-by").textContent = d.answer ? (d.answer_by || []).join(" and ") + " answers" : "";
    $("answer-text").textContent = d.answer || "";
  }
}

// ---- running ----

function schedule(now) {
  if (!pendingSince) pendingSince = performance.now();
  writeURL();
  clearTimeout(timer);
  timer = setTimeout(run, now ? 0 : DEBOUNCE_MS);
}

async function run() {
  if (controller) controller.abort();
  controller = new AbortController();
  const seq = ++runSeq;
  const q = query(state.ab ? { whatif: state.ab } : {});
  let r, body;
  try {
    r = await api("api/run?" + q.toString(), { signal: controller.signal, headers: { "X-Lab-Client": clientId } });
    body = r.body;
  } catch (err) {
    if (err.name === "AbortError") return;
    showError(String(err), []);
    return;
  }
  if (r.status === 409 || seq !== runSeq) return; // a later request supersedes it
  window.labStats.answers++;
  clearKnobErrors();
  if (!r.ok) {
    // A link holding a value the loader refuses: the knobs still show,
    // the bad one marked with the loader's message.
    if (body.knobs && !current) {
      drawKnobs(body.knobs);
      if (state.seed !== "") $("seed").value = state.seed;
    }
    showError(body.error, body.problems || []);
    pendingSince = 0;
    return;
  }
  showError("", []);
  draw(body);
  window.labStats.runs++;
  if (pendingSince) {
    window.labStats.latencies.push(performance.now() - pendingSince);
    pendingSince = 0;
  }
}

function clearKnobErrors() {
  for (const e of document.querySelectorAll(".knob-error")) {
    e.textContent = "";
    e.hidden = true;
  }
  for (const e of document.querySelectorAll(".knob.bad")) e.classList.remove("bad");
}

function showError(msg, problems) {
  const box = $("error");
  const unplaced = [];
  for (const p of problems) {
    const slot = document.querySelector('.knob-error[data-key="' + CSS.escape(p.key) + '"]');
    if (slot) {
      slot.textContent = p.text;
      slot.hidden = false;
      slot.parentElement.classList.add("bad");
    } else {
      unplaced.push(p.text);
    }
  }
  const text = problems.length ? unplaced.join("\n") : msg;
  box.textContent = text;
  box.hidden = !text;
}

// ---- drawing an answer ----

function draw(ans) {
  const firstOfScenario = !current || current.a.scenario !== ans.a.scenario || current.a.end !== ans.a.end;
  current = ans;
  if (firstOfScenario || !view) {
    view = [0, ans.a.end];
    cursor = Math.min(cursor, ans.a.end);
  }
  const sig = state.s + "\n" + ans.a.sets.filter((s) => keyOf(s) === "faults").join("\n") + "\n" + ans.a.knobs.length;
  if (sig !== knobsFor) {
    drawKnobs(ans.a.knobs);
    knobsFor = sig;
  } else {
    updateKnobs(ans.a.knobs);
  }
  if (document.activeElement !== $("seed")) $("seed").value = String(ans.a.seed);
  if (state.seed === "") {
    // The permalink names the seed, so that it replays this run even if
    // the scenario's default seed changes.
    state.seed = String(ans.a.seed);
    writeURL();
  }
  const b = ans.b;
  $("run-b").hidden = !b; // first: A's lanes leave room for B's verdicts
  drawSide("a", ans.a);
  if (b) {
    if (b.applies) {
      drawSide("b", b.run);
      $("sets-b").textContent = b.remedy + ": " + b.sets.join(" ");
    } else {
      $("mutex-b").textContent = b.remedy + " does not apply";
      $("mutex-b").className = "badge na";
      $("resource-b").textContent = b.why;
      $("resource-b").className = "badge na";
      $("sets-b").textContent = "";
      $("metrics-b").textContent = "";
      $("diagram-b").textContent = "";
    }
  }
  $("runs").classList.toggle("ab", !!b);
  showSide(shownSide);
  drawTrace(ans.a.trace);
  moveCursor(cursor);
  drawChallenge();
}

// In lecture mode, A and B are tabs: both verdicts show, one diagram.
let shownSide = "a";
function showSide(side) {
  shownSide = side;
  $("run-a").classList.toggle("shown", side === "a");
  $("run-b").classList.toggle("shown", side === "b");
}

function drawSide(side, v) {
  const run = v.run;
  const badge = (id, what, verdict) => {
    const b = $(id);
    b.textContent = what + ": " + verdict;
    b.className = "badge " + verdict;
  };
  badge("mutex-" + side, "mutual exclusion", run.mutex);
  badge("resource-" + side, "resource", run.resource);
  if (side === "a") $("sets-a").textContent = v.sets.length ? v.sets.join(" ") : "as written";
  const m = $("metrics-" + side);
  m.textContent = "";
  const items = [
    run.mutex_violations + " overlap" + (run.mutex_violations === 1 ? "" : "s") + ", longest " + run.max_overlap_ms.toFixed(3) + " ms",
    run.lost_updates + " lost update" + (run.lost_updates === 1 ? "" : "s") + ", " + run.stale_writes_accepted + " stale accepted, " + run.stale_writes_rejected + " rejected",
    run.acquire_successes + "/" + run.acquire_attempts + " acquired, p99 " + run.acquire_p99_ms.toFixed(3) + " ms",
    "unavailable " + run.unavailable_ms.toFixed(0) + " ms, longest outage " + run.longest_outage_ms.toFixed(0) + " ms",
    run.events + " events, " + run.messages + " messages",
  ];
  for (const t of items) m.appendChild(el("li", {}, t));
  if (side === "a") $("cut-a").textContent = v.cut || "";
  drawDiagram($("diagram-" + side), v, side === "a");
}

// ---- knobs ----

function knobInput(k) {
  let input;
  if (k.type === "enum") {
    input = el("select", { "data-key": k.key, "aria-label": k.key });
    for (const o of k.options) input.appendChild(el("option", { value: o }, o));
    input.value = k.value;
    input.addEventListener("change", () => { setOverride(k.key, input.value); schedule(); });
  } else {
    input = el("input", { "data-key": k.key, "aria-label": k.key, value: k.value, size: 8 });
    if (k.type === "int") { input.type = "number"; input.step = "1"; input.min = "0"; }
    input.addEventListener("input", () => { setOverride(k.key, input.value.trim()); schedule(); });
  }
  return input;
}

function drawKnobs(knobs) {
  const box = $("knobs");
  // A redraw must not take the knob being typed into from under the
  // user: an answer can arrive between two keys (a permalink with a bad
  // value redraws the knobs with each refusal), and the next key would
  // land nowhere. The new knob of the same key takes the text, the caret
  // and the focus.
  const typing = box.contains(document.activeElement) && document.activeElement.dataset.key ? document.activeElement : null;
  box.textContent = "";
  let group = null, fs = null;
  for (const k of knobs) {
    if (k.group !== group) {
      group = k.group;
      fs = el("fieldset", { class: "group" });
      fs.appendChild(el("legend", {}, group));
      box.appendChild(fs);
    }
    const row = el("label", { class: "knob" });
    row.appendChild(el("span", { class: "knob-label" }, k.label));
    row.appendChild(knobInput(k));
    const err = el("span", { class: "knob-error", "data-key": k.key });
    err.hidden = true;
    row.appendChild(err);
    fs.appendChild(row);
  }
  if (typing) {
    const input = box.querySelector('[data-key="' + CSS.escape(typing.dataset.key) + '"]:not(.knob-error)');
    if (input) {
      input.value = typing.value;
      input.focus();
      try {
        input.setSelectionRange(typing.selectionStart, typing.selectionEnd);
      } catch {
        // a number input or a select has no caret to restore
      }
    }
  }
}

function updateKnobs(knobs) {
  for (const k of knobs) {
    const input = document.querySelector('[data-key="' + CSS.escape(k.key) + '"]:not(.knob-error)');
    if (input && input !== document.activeElement && input.value !== k.value) input.value = k.value;
  }
}

// ---- the space-time diagram ----

// The diagram's type: lecture mode is read from the back row, so none of
// its text is under 24 px (the browser test measures it).
const FONT = () => (state.lecture ? 24 : 11);
const LEFT = () => (state.lecture ? 400 : 240);

// laneHeight is a lane's height: in lecture mode what fits every lane in
// the window below the diagram's top (two lines of text at least), else 58.
function laneHeight(box, n, top) {
  if (!state.lecture) return 58;
  let avail = window.innerHeight - box.getBoundingClientRect().top - top - 12;
  // A's diagram leaves room for B's verdicts below it.
  if (box.id === "diagram-a" && !$("run-b").hidden) avail -= $("run-b").querySelector(".verdicts").offsetHeight + 6;
  return Math.max(2 * FONT() + 10, Math.min(100, Math.floor(avail / Math.max(n, 1))));
}

// netRows places the network marks' labels (partitions, heals) in rows of
// their own above the lanes, so that no label prints over a lane or over
// another label: each goes in the first row where it clears the last one.
function netRows(v, x, inView) {
  const charW = FONT() * 0.62;
  const ends = [];
  const row = new Map();
  const marks = v.marks.filter((m) => (m.kind === "partition" || m.kind === "heal") && inView(m.at, m.at));
  marks.sort((a, b) => a.at - b.at);
  for (const m of marks) {
    const x0 = x(m.at) + 3, x1 = x0 + (m.label || "").length * charW + 6;
    let r = ends.findIndex((e) => e <= x0);
    if (r < 0) { r = ends.length; ends.push(0); }
    ends[r] = x1;
    row.set(m, r);
  }
  return { rows: ends.length, row };
}

function geometry(v, box) {
  const width = Math.max(box.clientWidth || 900, 600);
  const left = LEFT(), right = width - 16;
  const [from, to] = view || [0, v.end];
  const x = (t) => left + ((t - from) / (to - from)) * (right - left);
  const inView = (a, b) => b >= from && a <= to;
  const ruler = FONT() + 23;
  const rowH = FONT() + 5;
  const net = netRows(v, x, inView);
  const top = ruler + net.rows * rowH;
  const H = laneHeight(box, v.lanes.length, top);
  const laneY = {};
  v.lanes.forEach((l, i) => { laneY[l.name] = top + i * H; });
  return { width, left, right, from, to, x, inView, laneY, ruler, rowH, net, top, H, height: top + v.lanes.length * H + 8 };
}

function ownerColour(v) {
  const colours = {};
  let i = 0;
  for (const l of v.lanes) if (l.role === "client") colours[l.name] = PALETTE[i++ % PALETTE.length];
  return (label) => {
    const owner = (label || "").split("#")[0];
    return colours[owner] || "#777";
  };
}

function drawDiagram(box, v, main) {
  const g = geometry(v, box);
  const colour = ownerColour(v);
  const root = svg("svg", { width: g.width, height: g.height, class: "st", viewBox: "0 0 " + g.width + " " + g.height });
  const defs = svg("defs");
  defs.innerHTML =
    '<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>' +
    '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ddd"/><line x1="0" y1="0" x2="0" y2="6" stroke="#888" stroke-width="2"/></pattern>' +
    '<clipPath id="plot-' + (main ? "a" : "b") + '"><rect x="' + g.left + '" y="0" width="' + (g.right - g.left) + '" height="' + g.height + '"/></clipPath>';
  root.appendChild(defs);
  const plot = svg("g", { "clip-path": "url(#plot-" + (main ? "a" : "b") + ")" });
  const H = g.H, TOP = g.top, F = FONT();
  const inView = g.inView;

  // ruler
  const span = g.to - g.from;
  const step = niceStep(span / 10);
  for (let t = Math.ceil(g.from / step) * step; t <= g.to; t += step) {
    root.appendChild(svg("line", { x1: g.x(t), x2: g.x(t), y1: g.ruler - 6, y2: g.height, class: "grid" }));
    // The last label would cross the right edge if centred (lecture
    // mode's type is wide): it ends at its tick instead.
    const label = fmtTick(t, step);
    const anchor = g.x(t) + label.length * F * 0.31 > g.width - 2 ? "end" : "middle";
    root.appendChild(el("svg:text", { x: g.x(t), y: g.ruler - 10, class: "tick", "text-anchor": anchor }, label));
  }
  // lanes
  v.lanes.forEach((l) => {
    const y = g.laneY[l.name];
    const row = svg("rect", { x: 0, y: y, width: g.width, height: H, class: "lane " + l.role, "data-lane": l.name });
    root.appendChild(row);
    if (state.lecture) {
      // Two lines: the name and its clock, then what it believes.
      root.appendChild(el("svg:text", { x: 8, y: y + F + 4, class: "lane-name" }, l.name));
      root.appendChild(el("svg:text", { x: g.left - 10, y: y + F + 4, class: "clock", "text-anchor": "end", "data-clock": l.name }, ""));
      root.appendChild(el("svg:text", { x: 8, y: y + 2 * F + 10, class: "belief", "data-belief": l.name }, ""));
      return;
    }
    root.appendChild(el("svg:text", { x: 8, y: y + 18, class: "lane-name" }, l.name));
    root.appendChild(el("svg:text", { x: 8, y: y + 34, class: "belief", "data-belief": l.name }, ""));
    root.appendChild(el("svg:text", { x: 8, y: y + 49, class: "clock", "data-clock": l.name }, ""));
  });
  root.appendChild(plot);
  // overlaps, under everything else
  for (const o of v.overlaps) {
    if (!inView(o.start, o.end)) continue;
    const ys = [g.laneY[o.a], g.laneY[o.b]].filter((y) => y !== undefined);
    const y0 = Math.min(...ys), y1 = Math.max(...ys) + H;
    plot.appendChild(svg("rect", { x: g.x(o.start), y: y0, width: Math.max(g.x(o.end) - g.x(o.start), 2), height: y1 - y0, class: "overlap" },
      o.a + " and " + o.b + " both hold the lock: " + secs(o.start) + " to " + secs(o.end) + " (" + ((o.end - o.start) / 1e6).toFixed(3) + " ms)"));
  }
  // bars
  for (const s of v.spans) {
    const y = g.laneY[s.lane];
    if (y === undefined || !inView(s.start, s.end)) continue;
    const x0 = g.x(s.start), w = Math.max(g.x(s.end) - x0, 1.5);
    // The upper half of a lane shows the lock (believed, or a key), the
    // lower half pauses and downtime; lecture mode uses each half whole.
    const upper = state.lecture ? { y: y + 3, h: H / 2 - 4 } : { y: y + 6, h: H * 0.42 };
    const lower = state.lecture ? { y: y + H / 2 + 1, h: H / 2 - 4 } : { y: y + H * 0.52, h: H * 0.3 };
    let attrs, title;
    switch (s.kind) {
      case "hold":
        attrs = { y: upper.y, height: upper.h, fill: colour(s.lane + "#"), class: "bar hold" };
        title = s.lane + " believes it holds the lock" + (s.label ? " (" + s.label + ")" : "") + ", " + secs(s.start) + " to " + secs(s.end);
        break;
      case "key":
        attrs = { y: upper.y, height: upper.h, fill: colour(s.label), class: "bar key" };
        title = s.lane + " holds the lock key " + s.label + ", " + secs(s.start) + " to " + secs(s.end);
        break;
      case "pause":
        attrs = { y: lower.y, height: lower.h, fill: "url(#hatch)", class: "bar pause" };
        title = s.lane + " is paused" + (s.label ? " (" + s.label + ")" : "") + ", " + secs(s.start) + " to " + secs(s.end) + " (" + ((s.end - s.start) / 1e9).toFixed(3) + " s)";
        break;
      default:
        attrs = { y: lower.y, height: lower.h, class: "bar down" };
        title = s.lane + " is " + (s.label || "down") + ", " + secs(s.start) + " to " + secs(s.end);
    }
    attrs.x = x0;
    attrs.width = w;
    plot.appendChild(svg("rect", attrs, title));
    const label = s.kind === "pause" ? (s.label || "pause") + " " + ((s.end - s.start) / 1e9).toFixed(3).replace(/\.?0+$/, "") + " s" : s.label;
    // A label goes inside its bar, only where the bar is wide and tall
    // enough for it (lecture mode's type needs a tall lane).
    if (label && w > label.length * F * 0.62 + 6 && attrs.height >= F * 1.05) {
      plot.appendChild(el("svg:text", { x: Math.max(x0, g.left) + 4, y: attrs.y + attrs.height - 5, class: "bar-label" + (s.kind === "hold" || s.kind === "key" ? " on-colour" : "") }, label));
    }
  }
  // crashes and power losses
  for (const d of v.downs) {
    const y = g.laneY[d.lane];
    if (y === undefined || !inView(d.at, d.at)) continue;
    const x = g.x(d.at), cy = y + H * 0.67;
    const what = d.kind === "power-loss" ? "loses power" : "crashes";
    const title = d.lane + " " + what + " at " + secs(d.at) +
      (d.restart >= 0 ? ", starts again at " + secs(d.restart) : ", does not restart") +
      (d.held.length ? "; it held " + d.held.join(", ") + (d.lost.length ? ", lost " + d.lost.join(", ") : ", kept every key") : "");
    let glyph;
    if (d.kind === "power-loss") {
      glyph = svg("path", { d: "M" + (x + 3) + "," + (cy - 11) + " L" + (x - 5) + "," + (cy + 1) + " L" + (x) + "," + (cy + 1) + " L" + (x - 3) + "," + (cy + 11) + " L" + (x + 6) + "," + (cy - 2) + " L" + (x + 1) + "," + (cy - 2) + " z", class: "glyph power-loss" }, title);
    } else {
      glyph = svg("path", { d: "M" + (x - 6) + "," + (cy - 6) + " L" + (x + 6) + "," + (cy + 6) + " M" + (x + 6) + "," + (cy - 6) + " L" + (x - 6) + "," + (cy + 6), class: "glyph crash" }, title);
    }
    plot.appendChild(glyph);
    const text = (d.kind === "power-loss" ? "power lost" : "crashed") + (d.lost.length ? ": lost " + d.lost.join(", ") : "");
    plot.appendChild(el("svg:text", { x: x + 8, y: cy + 4, class: "glyph-label" }, text));
  }
  // marks; network labels in their rows above the lanes (netRows)
  for (const m of v.marks) {
    if (!inView(m.at, m.at)) continue;
    const x = g.x(m.at);
    if (m.kind === "partition" || m.kind === "heal") {
      const row = g.net.row.get(m);
      plot.appendChild(svg("line", { x1: x, x2: x, y1: g.ruler + row * g.rowH, y2: g.height, class: "mark " + m.kind }, m.label + " at " + secs(m.at)));
      plot.appendChild(el("svg:text", { x: x + 3, y: g.ruler + (row + 1) * g.rowH - 4, class: "mark-label" }, m.label));
      continue;
    }
    const y = g.laneY[m.lane];
    if (y === undefined) continue;
    const title = m.lane + ": " + (m.kind === "clock" ? "clock " : "") + (m.label || m.kind) + " at " + secs(m.at);
    if (m.kind === "clock") {
      plot.appendChild(svg("path", { d: "M" + x + "," + (y + 4) + " l6,10 l-12,0 z", class: "mark clock" }, title));
      // In lecture mode the label goes in the lane's lower half, clear of
      // the key's label in the upper half.
      plot.appendChild(el("svg:text", { x: x + 8, y: state.lecture ? y + H - 8 : y + 14, class: "mark-label" }, m.label));
    } else {
      plot.appendChild(svg("circle", { cx: x, cy: y + H * 0.5, r: 5, class: "mark " + m.kind }, title));
    }
  }
  // message arrows; each with a wide invisible line over it, which a
  // click on the arrow hits (hold, deliver or drop it)
  const arrows = svg("g", { class: "arrows" });
  const hits = svg("g", { class: "arrow-hits" });
  v.messages.forEach((msg, i) => {
    const y0 = g.laneY[msg.from], y1 = g.laneY[msg.to];
    if (y0 === undefined || y1 === undefined || !inView(msg.sent, msg.at)) return;
    const cls = msg.kind.startsWith("RESOURCE") ? "res" : msg.reply ? "reply" : "req";
    const late = msg.at - msg.sent > 100e6 ? " late" : "";
    arrows.appendChild(svg("line", {
      x1: g.x(msg.sent), y1: y0 + H / 2, x2: g.x(msg.at), y2: y1 + H / 2,
      class: "arrow " + cls + late, "marker-end": "url(#head)",
    }, msg.kind + " " + msg.from + " → " + msg.to + ": sent " + secs(msg.sent) + ", received " + secs(msg.at) + " (" + ((msg.at - msg.sent) / 1e6).toFixed(3) + " ms)"));
    if (main) {
      hits.appendChild(svg("line", { x1: g.x(msg.sent), y1: y0 + H / 2, x2: g.x(msg.at), y2: y1 + H / 2, class: "arrow-hit", "data-msg": i },
        msg.kind + " " + msg.from + " → " + msg.to + ": click to hold, deliver or drop it"));
    }
  });
  plot.appendChild(arrows);
  plot.appendChild(hits);
  // messages in flight at the cursor, as dots on their arrows (moveCursor)
  plot.appendChild(svg("g", { class: "dots" }));
  // the cursor
  const cur = svg("g", { class: "cursor-g" });
  cur.appendChild(svg("line", { x1: 0, x2: 0, y1: g.ruler - 8, y2: g.height, class: "cursor" }));
  root.appendChild(cur);
  box.textContent = "";
  box.appendChild(root);
  box._g = g;
  box._v = v;
  if (main) wireDiagram(box);
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

function fmtTick(t, step) {
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / 1e9))));
  return (t / 1e9).toFixed(digits) + " s";
}

// ---- the cursor ----

function wireDiagram(box) {
  const svgEl = box.querySelector("svg");
  const timeAt = (ev) => {
    const g = box._g;
    const r = svgEl.getBoundingClientRect();
    const px = ev.clientX - r.left;
    const t = g.from + ((px - g.left) / (g.right - g.left)) * (g.to - g.from);
    return Math.max(0, Math.min(box._v.end, t));
  };
  const laneAt = (ev) => {
    const r = svgEl.getBoundingClientRect();
    const py = ev.clientY - r.top;
    const v = box._v;
    const i = Math.floor((py - box._g.top) / box._g.H);
    return i >= 0 && i < v.lanes.length ? v.lanes[i] : null;
  };
  let dragging = false;
  svgEl.addEventListener("mousedown", (ev) => {
    const kind = $("inject-kind").value;
    const lane = laneAt(ev);
    const hit = ev.target.closest ? ev.target.closest(".arrow-hit") : null;
    const near = hit && !kind ? messagesNear(box, ev) : [];
    if (near.length) {
      openMessageMenu(near, ev);
      ev.preventDefault();
      return;
    }
    closeMessageMenu();
    if (kind === "freeze" && lane) {
      const t = timeAt(ev);
      moveCursor(t);
      freezeOrWake(lane, t);
      return;
    }
    if (kind && lane) {
      inject(kind, lane.name);
      return;
    }
    dragging = true;
    moveCursor(timeAt(ev));
  });
  svgEl.addEventListener("mousemove", (ev) => { if (dragging) moveCursor(timeAt(ev)); });
  window.addEventListener("mouseup", () => { dragging = false; });
}

// eventIndex is the last trace line at or before t, -1 if none.
function eventIndex(t) {
  const tr = current ? current.a.trace : [];
  let lo = 0, hi = tr.length - 1, ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (tr[mid].at <= t) { ans = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return ans;
}

function step(dir) {
  const tr = current ? current.a.trace : [];
  if (!tr.length) return;
  let i = eventIndex(cursor);
  if (dir > 0) {
    // the first line after the current time
    let j = i + 1;
    if (j >= tr.length) return;
    moveCursor(tr[j].at, j);
  } else {
    // the line before the highlighted one
    const hl = highlighted >= 0 ? highlighted : i;
    const j = hl - 1;
    if (j < 0) return;
    moveCursor(tr[j].at, j);
  }
}

let highlighted = -1;

function moveCursor(t, line) {
  if (!current) return;
  cursor = t;
  for (const side of ["a", "b"]) {
    const box = $("diagram-" + side);
    if (!box._g || !box.querySelector(".cursor-g")) continue;
    const g = box._g;
    const x = g.x(t);
    box.querySelector(".cursor-g").setAttribute("transform", "translate(" + x + ",0)");
    box.querySelector(".cursor-g").style.display = t >= g.from && t <= g.to ? "" : "none";
    believe(box, t);
    drawDots(box, t);
  }
  $("cursor-time").textContent = "cursor " + secs(t) + " true time";
  const i = line !== undefined ? line : eventIndex(t);
  highlight(i);
}

function highlight(i) {
  const list = $("trace");
  const old = list.querySelector("li.current");
  if (old) old.classList.remove("current");
  highlighted = i;
  if (i < 0) return;
  const li = list.children[i];
  if (li) {
    li.classList.add("current");
    // Scroll the list, never the page (scrollIntoView would move both).
    const top = li.offsetTop, bottom = top + li.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }
}

// believe writes each lane's belief at t and its own clock's reading.
function believe(box, t) {
  const v = box._v;
  for (const l of v.lanes) {
    const at = (kind) => v.spans.find((s) => s.lane === l.name && s.kind === kind && s.start <= t && t < s.end);
    let text = "";
    const pause = at("pause"), down = at("down");
    if (l.role === "client") {
      const h = at("hold");
      const lec = state.lecture; // the left column holds about 30 characters
      text = h ? (lec ? "believes it holds " + (h.label || "it") : "believes it holds the lock" + (h.label ? " (" + h.label + ")" : "")) : "does not hold the lock";
      if (pause) text = "frozen" + (pause.label ? " (" + pause.label + ")" : "") + (h ? (lec ? ", believes it holds" : "; still believes it holds it") : "");
    } else if (l.role === "node" || l.role === "store") {
      const k = at("key");
      text = down ? (down.label || "down") : k ? "has the key " + k.label : "no lock key";
      if (pause && !down) text = "frozen; " + text;
    } else if (l.role === "resource") {
      const w = v.marks.filter((m) => (m.kind === "write" || m.kind === "reject") && m.at <= t);
      text = w.length ? "last: " + w[w.length - 1].label + " from " + w[w.length - 1].lane : "no write yet";
    }
    const b = box.querySelector('[data-belief="' + CSS.escape(l.name) + '"]');
    if (b) b.textContent = text;
    const c = box.querySelector('[data-clock="' + CSS.escape(l.name) + '"]');
    if (c) c.textContent = l.clock && l.clock.length ? (state.lecture ? "clock " + (clockAt(l.clock, t) / 1e9).toFixed(3) + " s" : "its clock " + secs(clockAt(l.clock, t))) : "";
  }
}

// clockAt reads a lane's sampled clock at t, straight between samples.
function clockAt(samples, t) {
  let lo = 0, hi = samples.length - 1;
  if (t <= samples[0][0]) return samples[0][1] + (t - samples[0][0]);
  if (t >= samples[hi][0]) return samples[hi][1] + (t - samples[hi][0]);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (samples[mid][0] <= t) lo = mid; else hi = mid;
  }
  const [t0, l0] = samples[lo], [t1, l1] = samples[hi];
  return l0 + ((l1 - l0) * (t - t0)) / (t1 - t0);
}

// ---- the trace ----

function drawTrace(tr) {
  const list = $("trace");
  list.textContent = "";
  const frag = document.createDocumentFragment();
  tr.forEach((line, i) => {
    const li = el("li", { "data-i": i, "data-at": line.at });
    li.appendChild(el("span", { class: "t" }, secs(line.at)));
    li.appendChild(el("span", { class: "who" }, line.actor));
    li.appendChild(el("span", { class: "local" }, line.local ? "(its clock " + line.local + ")" : ""));
    li.appendChild(el("span", { class: "what" }, line.text));
    li.addEventListener("click", () => moveCursor(line.at, i));
    frag.appendChild(li);
  });
  list.appendChild(frag);
  highlighted = -1;
}

// ---- inject ----

async function inject(kind, target) {
  const size = $("inject-size").value.trim();
  const extra = { kind: kind, target: target, at: Math.round(cursor) + "ns" };
  if (kind === "clock-step") extra.by = size.startsWith("-") || size.startsWith("+") ? size : "+" + size;
  else extra.for = size;
  const r = await api("api/inject?" + query(extra).toString());
  const body = r.body;
  if (!r.ok) {
    showError(body.error, []);
    return;
  }
  state.sets = body.sets;
  schedule(true);
}

// ---- the student as the adversary ----

// api/inject with the page's overrides and extra; on success the
// overrides become the answer's and the run follows. A change the loader
// refuses shows its message, and the run stays as it was.
async function injectWith(extra) {
  const r = await api("api/inject?" + query(extra).toString());
  if (!r.ok) {
    showError(r.body.error, []);
    return false;
  }
  state.sets = r.body.sets;
  schedule(true);
  return true;
}

let menuMsgs = [];

// messagesNear are the messages whose arrows pass within 6 px of the
// event's point, nearest first: arrows sent at one moment to several
// nodes overlap, and the menu lets the student pick among them.
function messagesNear(box, ev) {
  const g = box._g, v = box._v, H = g.H;
  const r = box.querySelector("svg").getBoundingClientRect();
  const px = ev.clientX - r.left, py = ev.clientY - r.top;
  const out = [];
  v.messages.forEach((msg, i) => {
    const y0 = g.laneY[msg.from], y1 = g.laneY[msg.to];
    if (y0 === undefined || y1 === undefined || !g.inView(msg.sent, msg.at)) return;
    const ax = g.x(msg.sent), ay = y0 + H / 2, bx = g.x(msg.at), by = y1 + H / 2;
    const dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    const f = len2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
    const d = Math.hypot(ax + f * dx - px, ay + f * dy - py);
    if (d <= 6) out.push({ i: i, d: d });
  });
  out.sort((a, b) => a.d - b.d || a.i - b.i);
  return out.map((c) => v.messages[c.i]);
}

// openMessageMenu offers what the adversary may do to one of msgs: hold
// it (it arrives when released: deliver at the cursor later), deliver it
// at the cursor, or drop it.
function openMessageMenu(msgs, ev) {
  menuMsgs = msgs;
  const m = $("msg-menu");
  const pick = $("msg-pick");
  pick.textContent = "";
  msgs.forEach((msg, i) => pick.appendChild(el("option", { value: i },
    msg.kind + " " + msg.from + " → " + msg.to + ", sent " + secs(msg.sent) + ", arrives " + secs(msg.at))));
  pick.value = "0";
  const canDeliver = () => {
    const msg = menuMsgs[+pick.value];
    $("msg-deliver").disabled = !(msg && cursor > msg.sent);
  };
  pick.onchange = canDeliver;
  canDeliver();
  $("msg-deliver").textContent = "deliver at the cursor (" + secs(cursor) + ")";
  m.hidden = false;
  const x = Math.min(ev.clientX + window.scrollX + 8, window.scrollX + window.innerWidth - m.offsetWidth - 8);
  m.style.left = Math.max(0, x) + "px";
  m.style.top = ev.clientY + window.scrollY + 8 + "px";
}

function closeMessageMenu() {
  $("msg-menu").hidden = true;
  menuMsgs = [];
}

// messageAction holds, delivers or drops the message of the menu: a
// hold-message or drop-message fault keyed by its sender, receiver and
// send time.
function messageAction(what) {
  const msg = menuMsgs[+$("msg-pick").value];
  closeMessageMenu();
  if (!msg) return;
  const extra = { target: msg.from, to: msg.to, at: String(msg.sent) };
  if (what === "drop") extra.kind = "drop-message";
  else {
    extra.kind = "hold-message";
    if (what === "deliver") extra.for = Math.round(cursor - msg.sent) + "ns";
    else extra.for = $("hold-for").value.trim();
  }
  injectWith(extra);
}

// freezeOrWake freezes the lane's process at t, until the end of the run
// unless woken; a lane frozen at t is woken there: the pause ends at t.
function freezeOrWake(lane, t) {
  const v = current && current.a;
  if (!v) return;
  const pause = v.spans.find((s) => s.lane === lane.name && s.kind === "pause" && s.start <= t && t < s.end);
  if (pause) {
    injectWith({ kind: "wake", target: lane.name, since: String(pause.start), at: String(Math.round(t)) });
    return;
  }
  injectWith({ kind: "pause", target: lane.name, at: Math.round(t) + "ns", for: Math.max(1e6, Math.round(v.end - t + 1e9)) + "ns" });
}

// ---- challenge mode ----

function challengeOf() {
  const e = catalog.find((x) => x.id === state.s);
  return e && e.challenge;
}

function startChallenge(on) {
  const c = challengeOf();
  state.challenge = on && !!c;
  if (state.challenge) {
    state.sets = c.sets.slice();
    state.ab = "";
    $("ab").value = "";
  } else {
    state.sets = [];
  }
  $("inject-kind").value = state.challenge ? "freeze" : "";
  schedule(true);
  drawChallenge();
}

// drawChallenge shows the goal, the actions so far against the limit and
// the par, and the banner once the checker finds the violation.
function drawChallenge() {
  const box = $("challenge");
  const c = challengeOf();
  box.hidden = !(state.challenge && c);
  $("start-challenge").textContent = state.challenge ? "end challenge" : "challenge";
  if (box.hidden || !current) return;
  const n = current.a.faults;
  $("challenge-goal").textContent = "Break mutual exclusion with at most " + c.max + " action" + (c.max === 1 ? "" : "s") + ": freeze a process (inject: freeze, then click its lane; click again to wake it), or click a message to hold, deliver or drop it.";
  $("challenge-count").textContent = "actions: " + n + " of at most " + c.max + " · par " + c.par;
  const won = current.a.run.mutex === "violation";
  const banner = $("challenge-banner");
  banner.hidden = !won;
  banner.className = n <= c.max ? "won" : "over";
  if (won) {
    banner.textContent = n <= c.max
      ? "Mutual exclusion broken with " + n + " action" + (n === 1 ? "" : "s") + (n <= c.par ? ", at par!" : " (par " + c.par + ")") + " The explorer's minimal counterexample: " + c.minimal + "."
      : "Mutual exclusion broken, but with " + n + " actions, more than " + c.max + ": reset and try with fewer.";
  }
}

// ---- playback ----

let playing = false, lastFrame = 0;

function play(on) {
  playing = on && !!current;
  $("play").textContent = playing ? "❚❚ pause" : "▶ play";
  $("play").setAttribute("aria-pressed", playing ? "true" : "false");
  if (!playing) return;
  if (cursor >= current.a.end) moveCursor(0);
  lastFrame = performance.now();
  requestAnimationFrame(frame);
}

// frame moves the cursor by the time since the last frame times the
// speed (simulated seconds per second).
function frame(now) {
  if (!playing || !current) return;
  const dt = Math.min(now - lastFrame, 100);
  lastFrame = now;
  const t = Math.min(current.a.end, cursor + dt * 1e6 * parseFloat($("speed").value));
  moveCursor(t);
  if (t >= current.a.end) {
    play(false);
    return;
  }
  requestAnimationFrame(frame);
}

// drawDots draws each message in flight at t as a dot on its arrow.
function drawDots(box, t) {
  const layer = box.querySelector(".dots");
  if (!layer) return;
  layer.textContent = "";
  const g = box._g, v = box._v, H = g.H;
  for (const msg of v.messages) {
    if (!(msg.sent <= t && t < msg.at)) continue;
    const y0 = g.laneY[msg.from], y1 = g.laneY[msg.to];
    if (y0 === undefined || y1 === undefined) continue;
    const f = (t - msg.sent) / (msg.at - msg.sent);
    const cls = msg.kind.startsWith("RESOURCE") ? "res" : msg.reply ? "reply" : "req";
    layer.appendChild(svg("circle", {
      cx: g.x(msg.sent) + f * (g.x(msg.at) - g.x(msg.sent)), cy: y0 + H / 2 + f * (y1 - y0), r: state.lecture ? 8 : 5, class: "dot " + cls,
    }, msg.kind + " " + msg.from + " → " + msg.to + " in flight"));
  }
}

// ---- tours ----

function drawTourPicker() {
  const p = $("tour-picker");
  p.textContent = "";
  p.appendChild(el("option", { value: "" }, "no tour"));
  for (const t of tours) {
    const o = el("option", { value: t.id }, (t.tour ? t.tour.title : t.id) + (t.source === "dir" ? " (your file)" : "") + (t.error ? " (does not load)" : ""));
    o.disabled = !!t.error;
    p.appendChild(o);
  }
  p.value = state.tour;
}

function tourOf() {
  const t = tours.find((x) => x.id === state.tour);
  return t && t.tour;
}

// goStep opens step i of the tour: its scenario with its overrides, seed
// and B side, the cursor at its time, its text, and its question with the
// answer hidden until a click.
function goStep(i) {
  const t = tourOf();
  if (!t) {
    state.tour = "";
    drawTour();
    return;
  }
  state.step = Math.max(0, Math.min(t.steps.length - 1, i));
  const st = t.steps[state.step];
  state.s = st.scenario;
  state.sets = st.sets.slice();
  state.seed = st.seed === undefined || st.seed === null ? "" : String(st.seed);
  state.ab = st.whatif || "";
  state.challenge = false;
  $("ab").value = state.ab;
  cursor = st.cursor;
  view = null;
  current = null; // draw anew, the cursor where the step puts it
  showAbout();
  drawTour();
  schedule(true);
}

function drawTour() {
  const t = tourOf();
  $("tour").hidden = !t;
  document.body.classList.toggle("touring", !!t);
  $("tour-picker").value = t ? state.tour : "";
  if (!t) return;
  const st = t.steps[state.step];
  $("tour-title").textContent = t.title + ": step " + (state.step + 1) + " of " + t.steps.length + (st.title ? ": " + st.title : "");
  $("tour-text").textContent = st.text;
  $("tour-question").hidden = !st.question;
  $("tour-question-text").textContent = st.question || "";
  $("tour-answer").hidden = true;
  $("tour-answer").textContent = st.answer || "";
  $("tour-reveal").hidden = !st.question;
  $("tour-prev").disabled = state.step === 0;
  $("tour-next").disabled = state.step === t.steps.length - 1;
}

// ---- download ----

// download saves the scenario as a file of its own. The served lab's link
// fetches it from the server; the exported lab makes it in the page.
async function download(ev) {
  if (!window.labBackend) return;
  ev.preventDefault();
  const a = await window.labBackend.call("api/download?" + query().toString(), clientId);
  if (a.status !== 200) {
    const body = JSON.parse(a.body);
    showError(body.error, body.problems || []);
    return;
  }
  const url = URL.createObjectURL(new Blob([a.body], { type: "application/toml" }));
  const link = el("a", { href: url, download: (current ? current.a.file : state.s + ".toml") });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- zoom ----

function zoom(f) {
  if (!current) return;
  const end = current.a.end;
  if (f === 0) view = [0, end];
  else {
    const w = Math.min(end, Math.max(1e6, (view[1] - view[0]) * f));
    let a = cursor - w / 2;
    a = Math.max(0, Math.min(end - w, a));
    view = [a, a + w];
  }
  draw(current);
}

// goStepFromURL opens the URL's tour step, keeping the URL's own
// overrides and seed (a permalink made during the step).
function goStepFromURL() {
  const t = tourOf();
  state.step = Math.min(state.step, t.steps.length - 1);
  const st = t.steps[state.step];
  cursor = st.cursor;
  drawTour();
}

// ---- start ----

async function start() {
  readURL();
  $("lecture").checked = state.lecture;
  document.body.classList.toggle("lecture", state.lecture);
  if (window.labBackend) {
    try {
      await window.labBackend.ready;
    } catch (err) {
      showError("the simulator did not load: " + err, []);
      return;
    }
  }
  await loadCatalog();
  const e = catalog.find((x) => x.id === state.s);
  if (!e || e.error) {
    showError(e ? e.error : "no scenario " + state.s, []);
    const first = catalog.find((x) => !x.error);
    if (!e) state.s = first.id;
  }
  showAbout();
  if (state.tour) {
    if (tourOf()) goStepFromURL();
    else state.tour = "";
  }
  $("ab").value = state.ab;
  if (state.challenge) $("inject-kind").value = "freeze";
  $("picker").addEventListener("change", () => {
    state.s = $("picker").value;
    state.sets = [];
    state.seed = "";
    state.challenge = false;
    cursor = 0;
    view = null;
    showAbout();
    schedule(true);
  });
  $("seed").addEventListener("input", () => { state.seed = $("seed").value.trim(); schedule(); });
  $("ab").addEventListener("change", () => { state.ab = $("ab").value; schedule(true); });
  $("lecture").addEventListener("change", () => {
    state.lecture = $("lecture").checked;
    document.body.classList.toggle("lecture", state.lecture);
    writeURL();
    if (current) draw(current);
  });
  for (const side of ["a", "b"]) {
    $("tab-" + side).addEventListener("click", () => {
      showSide(side);
      if (current) draw(current);
    });
  }
  $("msg-hold").addEventListener("click", () => messageAction("hold"));
  $("msg-deliver").addEventListener("click", () => messageAction("deliver"));
  $("msg-drop").addEventListener("click", () => messageAction("drop"));
  $("msg-cancel").addEventListener("click", closeMessageMenu);
  $("start-challenge").addEventListener("click", () => startChallenge(!state.challenge));
  $("play").addEventListener("click", () => play(!playing));
  $("tour-picker").addEventListener("change", () => {
    state.tour = $("tour-picker").value;
    if (state.tour) goStep(0);
    else { drawTour(); writeURL(); }
  });
  $("tour-prev").addEventListener("click", () => goStep(state.step - 1));
  $("tour-next").addEventListener("click", () => goStep(state.step + 1));
  $("tour-end").addEventListener("click", () => { state.tour = ""; drawTour(); writeURL(); });
  $("tour-reveal").addEventListener("click", () => { $("tour-answer").hidden = false; $("tour-reveal").hidden = true; });
  $("show-knobs").addEventListener("click", () => document.body.classList.toggle("knobs-open"));
  $("show-debate").addEventListener("click", () => document.body.classList.toggle("debate-open"));
  $("download").addEventListener("click", download);
  $("reset").addEventListener("click", () => { state.sets = []; state.seed = ""; schedule(true); });
  $("zoom-in").addEventListener("click", () => zoom(0.25));
  $("zoom-out").addEventListener("click", () => zoom(4));
  $("zoom-all").addEventListener("click", () => zoom(0));
  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") return;
    if (ev.key === " " && tag === "button") return; // the button's own click plays or pauses
    if (ev.key === "ArrowRight") { step(1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { step(-1); ev.preventDefault(); }
    else if (ev.key === "+" || ev.key === "=") zoom(0.25);
    else if (ev.key === "-") zoom(4);
    else if (ev.key === "0") zoom(0);
    else if (ev.key === " ") { play(!playing); ev.preventDefault(); }
    else if (ev.key === "Escape") closeMessageMenu();
  });
  window.addEventListener("resize", () => { if (current) draw(current); });
  writeURL();
  run();
}

start();
