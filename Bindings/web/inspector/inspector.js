// The inspector's page: a timeline of a session's inputs (a page of rows at
// a time, drawn only where the list is scrolled), the selected input's
// patches and effects, trees of state and view model loaded on demand, time
// travel, sessions as files and the scene graph. Talks to /inspector/ws.
// The trees and the graph are imported when their tab is first opened: the
// page that opens needs only this file (the server puts it in the page).

// Rows are asked for PAGE at a time (index.html asks for as many, attaching).
const ROW = 28, PAGE = 100;
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
const session = hash.get("session") || params.get("session");
const token = params.get("token");
// Opening's steps too (the benchmark tells where its time goes): this script
// running, and the attach answered.
const times = (window.inspectorTimes = { open: null, select: [], rewind: [], script: performance.now(), answered: null });
// How many times the rows were built (a test counts them): scrolling within
// the rows drawn, or a draw the page asks for twice, builds none.
window.inspectorDraws = 0;

// -- the socket

let ws = null, nextTag = 1;
const pending = new Map();
function connect() {
  // The first socket is the one the page's head opened (index.html).
  const early = window.inspectorSocket;
  window.inspectorSocket = null;
  if (early && early.readyState <= WebSocket.OPEN) ws = early;
  else {
    const url = new URL("/inspector/ws", location.href);
    url.protocol = url.protocol.replace("http", "ws");
    if (token) url.searchParams.set("token", token);
    ws = new WebSocket(url);
  }
  ws.onmessage = (m) => receive(JSON.parse(m.data));
  ws.onclose = () => { status("disconnected", ""); setTimeout(connect, 1000); };
  if (ws.attaching) {
    // The page's head asked already (index.html): its answer is tag 0.
    const answered = new Promise((resolve, reject) => pending.set(0, { resolve, reject }));
    for (const data of ws.early.splice(0)) receive(JSON.parse(data));
    attach(answered);
  } else if (ws.readyState === WebSocket.OPEN) attach();
  else ws.onopen = () => attach();
}
function ask(request) {
  const tag = nextTag++;
  return new Promise((resolve, reject) => {
    pending.set(tag, { resolve, reject });
    ws.send(JSON.stringify({ ...request, tag }));
  });
}
function receive(frame) {
  if (frame.event === "inputs") { inputsChanged(frame); return; }
  const waiter = pending.get(frame.tag);
  if (!waiter) return;
  pending.delete(frame.tag);
  if (frame.ok) waiter.resolve(frame);
  else waiter.reject(Object.assign(new Error(frame.error.message), frame.error));
}
function status(text, cls) { $("status").textContent = text; $("status").className = `badge ${cls}`; }
function banner(text, ok) { $("banner").hidden = !text; $("banner").textContent = text || ""; $("banner").className = ok ? "ok" : ""; }
function fileURL(path, extra = {}) {
  const url = new URL(path, location.href);
  url.searchParams.set("session", session || "");
  if (token) url.searchParams.set("token", token);
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url;
}

// -- state of the page

const view = { total: 0, rows: new Map(), version: 0, drawn: "", filter: {}, selected: null, spanEnd: null, travel: null, live: true, imported: null, follow: true,
               // Bumped by each reload: an answer for an older filter is dropped.
               generation: 0 };

async function attach(answered) {
  if (!session) { status("no session", ""); banner("Open the inspector with the tab's session key: /inspector/#session=KEY (in the app's tab: sessionStorage)."); return; }
  try {
    // The last page of the timeline comes with the answer: the page opens
    // scrolled to the end, drawn from it, with no request after this one.
    const generation = ++view.generation;
    const answer = await (answered || ask({ op: "attach", session, import: view.imported || undefined, rows: PAGE, filter: view.filter }));
    if (times.answered === null) times.answered = performance.now();
    view.live = answer.live;
    status(answer.live ? "live" : `file ${answer.path ? answer.path.split("/").pop() : ""}`, answer.live ? "live" : "");
    setTravel(answer.travel);
    facets(answer.facets);
    if (answer.page && view.follow && generation === view.generation) await show(answer.page);
    else await reload();
    if (times.open === null) { times.open = performance.now(); document.body.dispatchEvent(new CustomEvent("inspector-open")); }
  } catch (e) { status("not attached", ""); banner(`${e.code}: ${e.message}`); }
}

function setTravel(live) {
  view.travel = live;
  $("travel").hidden = live === null || live === undefined;
  $("travel").textContent = view.travel ? `travelling · live was input ${live}` : "";
  $("resume").disabled = !view.travel;
  for (const id of ["back", "forward"]) $(id).disabled = !view.live;
}

function facets(f) {
  if (!f) return;
  const form = $("filters");
  for (const [name, list] of [["scene", f.scenes], ["kind", f.kinds], ["type", f.types]]) {
    const select = form.elements[name];
    const keep = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const v of list) select.add(new Option(v, v));
    select.value = keep;
  }
}

// -- the timeline: rows fetched a page at a time, drawn where scrolled

// One request: the rows where the list is scrolled (the last ones when it
// follows the end), with how many there are.
async function reload() {
  const generation = ++view.generation;
  view.rows.clear();
  const box = $("timeline");
  const from = Math.max(0, Math.floor(box.scrollTop / ROW) - 10);
  const where = view.follow ? { tail: true } : { start: from };
  const page = await ask({ op: "inputs", ...where, count: PAGE, filter: view.filter });
  if (generation !== view.generation) return;
  await show(page);
}
async function show(page) {
  view.rows.clear();
  view.version++;
  page.rows.forEach((r, i) => view.rows.set(page.start + i, r));
  view.total = page.total;
  $("count").textContent = `${page.total} of ${page.inputs} inputs${page.failure ? ` · ${page.failure}` : ""}`;
  $("rows").style.height = `${view.total * ROW}px`;
  if (view.follow) $("timeline").scrollTop = view.total * ROW;
  await draw();
}

let drawing = null;
async function draw() {
  const generation = view.generation;
  const box = $("timeline");
  const from = Math.max(0, Math.floor(box.scrollTop / ROW) - 10);
  const to = Math.min(view.total, from + Math.ceil(box.clientHeight / ROW) + 20);
  for (let page = Math.floor(from / PAGE) * PAGE; page < to; page += PAGE) {
    let missing = false;
    for (let i = Math.max(page, from); i < Math.min(page + PAGE, to) && !missing; i++) missing = !view.rows.has(i);
    if (missing) {
      const answer = await ask({ op: "inputs", start: page, count: PAGE, filter: view.filter });
      if (generation !== view.generation) return;
      answer.rows.forEach((r, i) => view.rows.set(page + i, r));
      view.version++;
    }
  }
  // Setting scrollTop (show) asks for a draw of the same rows again.
  const drawn = [view.version, from, to, view.selected, view.spanEnd, view.travel, view.at].join();
  if (drawn === view.drawn) return;
  view.drawn = drawn;
  window.inspectorDraws++;
  const rows = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const r = view.rows.get(i);
    if (r) rows.appendChild(rowView(r, i));
  }
  $("rows").replaceChildren(rows);
}
function redraw() { if (!drawing) drawing = draw().finally(() => { drawing = null; }); }

function describe(r) {
  if (r.line === "send") return r.type;
  if (r.line === "outcome") return `effect ${r.effect}`;
  return `${r.line}${r.name ? ` ${r.name}` : ""}`;
}

// A row is a copy of this one, its parts filled in: no HTML read per row.
const ROW_PARTS = ["seq", "kind", "what", "scene", "diff"];
const rowTemplate = document.createElement("div");
for (const part of ROW_PARTS) rowTemplate.appendChild(document.createElement("span")).className = part;

function rowView(r, i) {
  const el = rowTemplate.cloneNode(true);
  const [seq, kind, what, scene, d] = el.children;
  const lo = Math.min(view.selected ?? -1, view.spanEnd ?? view.selected ?? -1), hi = Math.max(view.selected ?? -1, view.spanEnd ?? -1);
  el.className = "row" + (r.seq === view.selected ? " selected" : "") + (r.seq > lo && r.seq <= hi ? " span" : "")
    + (r.ops ? "" : " unchanged") + (view.travel && r.seq === view.at ? " current" : "");
  el.style.top = `${i * ROW}px`;
  el.dataset.seq = r.seq;
  seq.textContent = r.seq;
  kind.textContent = r.kind;
  what.textContent = describe(r);
  scene.textContent = r.scene ? `#${r.scene}` : "";
  d.textContent = r.error ? r.error.code : r.paths.join(", ") + (r.ops > r.paths.length ? ` +${r.ops - r.paths.length}` : "");
  if (r.error) d.classList.add("error");
  el.onclick = (e) => (e.shiftKey && view.selected !== null ? span(r.seq) : select(r.seq));
  return el;
}

$("timeline").addEventListener("scroll", () => {
  const box = $("timeline");
  view.follow = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW;
  redraw();
});
$("filters").addEventListener("change", () => {
  const f = $("filters").elements;
  view.filter = { scene: f.scene.value, kind: f.kind.value, type: f.type.value, changed: f.changed.checked };
  reload();
});

let refreshing = false;
async function inputsChanged(frame) {
  setTravel(frame.travel);
  if (refreshing) return;
  refreshing = true;
  try { await reload(); } finally { refreshing = false; }
}

// -- one input

async function select(seq) {
  const t0 = performance.now();
  view.selected = seq; view.spanEnd = null;
  $("scenario").disabled = false;
  const { input } = await ask({ op: "input", seq });
  showInput(input);
  tab("input");
  redraw();
  times.select.push(performance.now() - t0);
  document.body.dispatchEvent(new CustomEvent("inspector-selected", { detail: seq }));
}
function span(seq) { view.spanEnd = seq; redraw(); }

function json(v) { const t = JSON.stringify(v); return t.length > 400 ? t.slice(0, 400) + "…" : t; }

function showInput(input) {
  const host = $("tab-input");
  host.textContent = "";
  const title = document.createElement("h2");
  title.textContent = `Input ${input.seq}: ${input.line}${input.type ? ` ${input.type}` : ""}${input.name ? ` → ${input.name}` : ""}${input.scene ? ` #${input.scene}` : ""}`;
  const rewind = document.createElement("button");
  rewind.textContent = "⟲ Rewind here";
  rewind.id = "rewind";
  rewind.disabled = !view.live;
  rewind.onclick = () => travelTo(input.seq);
  host.append(title, rewind);
  if (input.action) section(host, "Action", json(input.action));
  if (input.outcome) section(host, "Outcome", json(input.outcome));
  if (input.error) section(host, "Refused in replay", json(input.error));
  const changes = Object.entries(input.changes || {});
  const h = document.createElement("h3");
  h.textContent = changes.length ? "State change (JSON Patch, before → after)" : "No state changed";
  host.appendChild(h);
  for (const [scene, patch] of changes) {
    const sub = document.createElement("div");
    sub.className = "scene-patch";
    sub.dataset.scene = scene;
    sub.innerHTML = `<strong>scene #${scene}</strong>`;
    const list = document.createElement("ul");
    list.className = "patch";
    for (const op of patch) {
      const li = document.createElement("li");
      li.className = `op-${op.op}`;
      li.textContent = `${op.op} ${op.path}${"value" in op ? ` = ${json(op.value)}` : ""}${op.truncated ? ` (${op.truncated}, not shown)` : ""}`;
      list.appendChild(li);
    }
    sub.appendChild(list);
    if (input.cut && input.cut[scene]) {
      const cut = document.createElement("p");
      cut.className = "cut";
      cut.textContent = `… ${input.cut[scene]} more operations not shown (the patch is cut at 48 KB)`;
      sub.appendChild(cut);
    }
    host.appendChild(sub);
  }
  if ((input.effects || []).length) {
    const lines = input.effects.map((e) => `#${e.id} ${e.service}.${e.op} (${e.status}) → ${e.fate ? (e.fate.ok ? `result at input ${e.fate.seq}` : `error at input ${e.fate.seq}`) : "in flight"}`);
    section(host, "Effects started", lines.join("\n"));
  }
  if (input.routes) section(host, "Routes", json(input.routes));
  if (input.stack) section(host, "Stack after", input.stack.join(" › "));
  if (input.opened) section(host, "Opened", input.opened.map((s) => `#${s}`).join(", "));
  if (input.closed) section(host, "Closed", input.closed.map((s) => `#${s}`).join(", "));
}
function section(host, name, text) {
  const h = document.createElement("h3"); h.textContent = name;
  const p = document.createElement("pre"); p.textContent = text;
  host.append(h, p);
}

// -- time travel

async function travelTo(seq) {
  const t0 = performance.now();
  try {
    const answer = await ask({ op: "rewind", to: seq });
    view.at = seq;
    setTravel(answer.live);
    banner(`Rewound to input ${seq}: the app shows that moment. Resume live to return to input ${answer.live}.`, true);
    // The inputs are as they were (the restore that the rewind journaled is
    // followed afterwards, and the page told): drawn again from the rows held.
    await draw();
    times.rewind.push(performance.now() - t0);
    document.body.dispatchEvent(new CustomEvent("inspector-rewound", { detail: seq }));
  } catch (e) { banner(`${e.code}: ${e.message}`); }
}
function neighbour(step) {
  const at = view.at ?? view.selected;
  const seqs = [...view.rows.values()].map((r) => r.seq).sort((a, b) => a - b);
  const i = seqs.indexOf(at);
  return i < 0 ? null : seqs[i + step];
}
$("back").onclick = () => { const s = neighbour(-1); if (s !== undefined && s !== null) { select(s); travelTo(s); } };
$("forward").onclick = () => { const s = neighbour(1); if (s !== undefined && s !== null) { select(s); travelTo(s); } };
$("resume").onclick = async () => {
  const answer = await ask({ op: "resume" });
  view.at = null; setTravel(null);
  banner(`Live again, at input ${answer.live}.`, true);
  await reload();
  document.body.dispatchEvent(new CustomEvent("inspector-resumed"));
};

// -- sessions as files

$("export").onclick = () => { location.href = fileURL("/inspector/export"); };
$("import").onchange = async (e) => {
  const file = e.target.files[0];
  e.target.value = ""; // the same file may be chosen again, after its scenes changed
  if (!file) return;
  let answer;
  try { answer = await (await fetch(fileURL("/inspector/import"), { method: "POST", body: file })).json(); }
  catch (error) { banner(`the import failed: ${error.message}`); return; }
  if (!answer.ok) { banner(`${answer.error.code}: ${answer.error.message}`); return; }
  const r = answer.replay;
  banner(r.identical ? `${file.name}: ${r.inputs} inputs replay identically.`
    : `${file.name}: diverges at input ${r.divergence.seq} (${r.divergence.kind}): ${r.divergence.error ? r.divergence.error.message : `view model ${r.divergence.got}, recorded ${r.divergence.expected}`}`, r.identical);
  $("banner").dataset.divergence = r.identical ? "" : String(r.divergence.seq);
  view.imported = answer.import;
  ws.close();
};
$("scenario").onclick = async () => {
  const a = Math.min(view.selected, view.spanEnd ?? view.selected), b = Math.max(view.selected, view.spanEnd ?? view.selected);
  const answer = await (await fetch(fileURL("/inspector/scenario", { from: a, to: b }))).json();
  if (!answer.ok) { banner(`${answer.error.code}: ${answer.error.message}`); return; }
  window.lastScenarios = answer.scenarios;
  for (const s of answer.scenarios) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(s, null, 2)], { type: "application/json" }));
    link.download = `${s.name.replace(/[^A-Za-z0-9._-]+/g, "-")}.scenario.json`;
    link.click();
  }
  banner(`Saved ${answer.scenarios.length} scenario file(s) of inputs ${a} to ${b}: run them with yaia test.`, true);
};

// -- trees, now, graph

function tab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== `tab-${name}`;
  if (name === "tree") loadScenes();
  if (name === "now") showNow();
  if (name === "graph") showGraph();
}
for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => tab(b.dataset.tab);

async function loadScenes() {
  const now = await ask({ op: "now" });
  const select = $("treeform").elements.scene;
  const keep = select.value;
  select.textContent = "";
  const scenes = [...now.flows.flatMap((f) => f.stack.map((e) => ({ scene: e.id, name: e.scene }))), ...now.scenes];
  for (const s of scenes) select.add(new Option(`${s.name} #${s.scene}`, s.scene));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  showTree();
}
function treeQuery(path) {
  const f = $("treeform").elements;
  return { scene: Number(f.scene.value), source: f.source.value, path: path || "" };
}
async function showTree(path) {
  if (!$("treeform").elements.scene.value) return;
  const { drawTree } = await import("./tree.js");
  drawTree($("tree"), ask, treeQuery(path));
}
$("treeform").addEventListener("change", (e) => { if (e.target.name !== "search") showTree(); });
$("treeform").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("treeform").elements.search.value;
  const host = $("matches");
  host.textContent = "";
  if (!text) return;
  const q = treeQuery();
  const answer = await ask({ op: "search", scene: q.scene, source: q.source, text });
  for (const m of answer.matches) {
    const el = document.createElement("div");
    el.className = "match";
    el.textContent = `${m.path}: ${m.preview}`;
    el.onclick = () => showTree(m.path.split("/").slice(0, -1).join("/"));
    host.appendChild(el);
  }
  if (!answer.matches.length) host.textContent = "Nothing matches.";
  if (answer.more) host.appendChild(document.createTextNode("… more matches not shown"));
});

async function showNow() {
  const now = await ask({ op: "now" });
  const host = $("tab-now");
  host.textContent = "";
  section(host, "Flows", now.flows.map((f) => `flow ${f.flow}${f.name ? ` (${f.name})` : ""} v${f.version}: ${f.stack.map((e) => `${e.scene} #${e.id}`).join(" › ")}`).join("\n") || "none");
  section(host, "Other scenes", now.scenes.map((s) => `${s.name} #${s.scene} (seq ${s.seq})`).join("\n") || "none");
  section(host, "Effects in flight", now.effects.map((e) => `#${e.id} ${e.service}.${e.op} (${e.status}), started at input ${e.seq}`).join("\n") || "none");
  return now;
}
async function showGraph() {
  const [{ graph }, now, { drawGraph }] = await Promise.all([ask({ op: "graph" }), ask({ op: "now" }), import("./graph.js")]);
  const flow = now.flows[now.flows.length - 1];
  const current = flow ? flow.stack[flow.stack.length - 1].scene : (now.scenes[0] || {}).name;
  drawGraph($("graph"), graph, current);
}

connect();
