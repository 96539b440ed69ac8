// The scene graph (what `yaia graph` draws), laid out in layers from the
// scenes nothing routes to, as SVG; the scene on top now is highlighted.

const NS = "http://www.w3.org/2000/svg";
const W = 180, H = 44, GX = 60, GY = 70;

function svg(tag, attrs, parent) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

export function drawGraph(host, graph, current) {
  host.textContent = "";
  const ids = graph.nodes.map((n) => n.id);
  const into = new Map(ids.map((id) => [id, 0]));
  for (const e of graph.edges) if (e.from !== e.to) into.set(e.to, (into.get(e.to) || 0) + 1);
  const layer = new Map();
  const queue = ids.filter((id) => !into.get(id));
  if (!queue.length && ids.length) queue.push(ids[0]);
  for (const id of queue) layer.set(id, 0);
  while (queue.length) {
    const id = queue.shift();
    for (const e of graph.edges) {
      if (e.from === id && !layer.has(e.to)) { layer.set(e.to, layer.get(id) + 1); queue.push(e.to); }
    }
  }
  for (const id of ids) if (!layer.has(id)) layer.set(id, 0);
  const rows = [];
  for (const id of ids) (rows[layer.get(id)] = rows[layer.get(id)] || []).push(id);
  const at = new Map();
  rows.forEach((row, y) => row.forEach((id, x) => at.set(id, { x: 20 + x * (W + GX), y: 20 + y * (H + GY) })));
  const width = 40 + Math.max(1, ...rows.map((r) => r.length)) * (W + GX);
  const height = 40 + rows.length * (H + GY);
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" }, host);
  const defs = svg("defs", {}, root);
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto" }, defs);
  svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#5b6475" }, marker);
  for (const e of graph.edges) {
    const a = at.get(e.from), b = at.get(e.to);
    if (!a || !b || e.from === e.to) continue;
    const line = svg("line", { x1: a.x + W / 2, y1: a.y + H, x2: b.x + W / 2, y2: b.y, stroke: "#5b6475", "marker-end": "url(#arrow)" }, root);
    line.dataset.route = e.route;
    const label = svg("text", { x: (a.x + b.x + W) / 2 + 4, y: (a.y + H + b.y) / 2, "font-size": 11, fill: "#5b6475" }, root);
    label.textContent = e.route;
  }
  for (const n of graph.nodes) {
    const p = at.get(n.id);
    const g = svg("g", { class: n.id === current ? "node current" : "node", "data-scene": n.id }, root);
    svg("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6, fill: "#eef3fd", stroke: "#8aa4d6" }, g);
    const t = svg("text", { x: p.x + 8, y: p.y + 18, "font-size": 13, "font-weight": 600 }, g);
    t.textContent = n.id;
    const s = svg("text", { x: p.x + 8, y: p.y + 34, "font-size": 11, fill: "#5b6475" }, g);
    s.textContent = n.declared ? `${n.actions.length} actions · ${n.effects.length} effects` : "a Swift or pack scene";
  }
}
