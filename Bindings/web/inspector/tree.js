// A big JSON value browsed a level at a time: each node's children are asked
// of the server when it is opened, a page at a time, never the whole value.

export function drawTree(host, ask, query) {
  host.textContent = "";
  host.appendChild(nodeView(ask, query, query.path || "", query.path || "(root)", null, true));
}

function nodeView(ask, query, path, key, info, open) {
  const el = document.createElement("div");
  el.className = "node";
  el.dataset.path = path;
  const line = document.createElement("div");
  line.className = "line";
  const toggle = document.createElement("span");
  toggle.className = "toggle";
  const container = !info || info.kind === "object" || info.kind === "array";
  toggle.textContent = container ? "▸ " : "  ";
  const k = document.createElement("span");
  k.className = "key";
  k.textContent = String(key);
  const preview = document.createElement("span");
  preview.className = "preview";
  preview.textContent = info ? `: ${info.preview}` : "";
  line.append(toggle, k, preview);
  el.appendChild(line);
  const children = document.createElement("div");
  children.className = "children";
  el.appendChild(children);
  let loaded = false;
  const load = async (offset) => {
    const answer = await ask({ op: "tree", scene: query.scene, source: query.source, path, offset });
    const node = answer.node;
    if (!info) preview.textContent = node.children ? ` (${node.kind}, ${node.size})` : `: ${node.preview}`;
    for (const child of node.children || []) {
      const childPath = `${path}/${String(child.key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
      children.appendChild(nodeView(ask, query, childPath, child.key, child, false));
    }
    if (node.more) {
      const more = document.createElement("button");
      more.textContent = `${node.more} more…`;
      more.onclick = () => { more.remove(); load(node.offset + node.children.length); };
      children.appendChild(more);
    }
  };
  const flip = () => {
    if (!container) return;
    const shown = toggle.textContent.startsWith("▾");
    toggle.textContent = shown ? "▸ " : "▾ ";
    children.hidden = shown;
    if (!shown && !loaded) { loaded = true; load(0).catch((e) => { preview.textContent = ` ${e.message}`; }); }
  };
  toggle.onclick = flip;
  k.onclick = flip;
  if (open) flip();
  return el;
}
