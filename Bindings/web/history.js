// A flow's stack in the browser's history: a push adds an entry, the back
// button reports the depth the page now shows ({"op":"popped"}), a pop in
// the runtime moves the history back, and the URL names the stack so that
// a link to it starts the same stack in a new tab ({"op":"link"}).

/** The default URL of a stack: the page's, with the scenes above the root in the hash. */
export function stackURL(stack) {
  const loc = globalThis.location;
  const hash = stack.length > 1 ? "#" + stack.slice(1).map((e) => encodeURIComponent(e.scene)).join("/") : "";
  return loc.pathname + loc.search + hash;
}

/** The default deep link: the scene names in the hash, each opened without arguments. */
export function hashPath(loc) {
  const hash = loc.hash.replace(/^#/, "");
  return hash ? hash.split("/").map((s) => decodeURIComponent(s)) : [];
}

export class FlowHistory {
  constructor(client, options = {}) {
    this.client = client;
    this.toURL = options.toURL || stackURL;
    this.parseLink = options.link || hashPath;
    const state = globalThis.history.state;
    this.depth = state && typeof state.yaia === "number" ? state.yaia : 1;
    if (!state || typeof state.yaia !== "number") globalThis.history.replaceState({ yaia: 1 }, "");
    this.ignore = 0;
    globalThis.addEventListener("popstate", (event) => this.popstate(event));
  }

  /** The path a fresh flow is linked to, from the page's URL. */
  linkPath() {
    return this.parseLink(globalThis.location);
  }

  /** Makes the history match the flow's new stack. */
  follow(flow) {
    const depth = flow.stack.length;
    if (depth > this.depth) {
      for (let d = this.depth + 1; d <= depth; d++) globalThis.history.pushState({ yaia: d }, "", this.toURL(flow.stack.slice(0, d)));
      this.depth = depth;
    } else if (depth < this.depth) {
      this.ignore++;
      globalThis.history.go(depth - this.depth);
      this.depth = depth;
    } else {
      globalThis.history.replaceState({ yaia: depth }, "", this.toURL(flow.stack));
    }
  }

  popstate(event) {
    const d = event.state && typeof event.state.yaia === "number" ? event.state.yaia : 1;
    const flow = this.client.flow;
    if (this.ignore > 0) {
      this.ignore--;
      this.depth = d;
      if (flow) globalThis.history.replaceState({ yaia: d }, "", this.toURL(flow.stack.slice(0, d)));
      return;
    }
    this.depth = d;
    if (!flow) return;
    const depth = flow.stack.length;
    if (d < depth) {
      this.client.request({ op: "popped", flow: flow.flow, depth: d, version: flow.version }).catch((error) => {
        // Already popped, or the stack moved meanwhile: take the runtime's.
        if (error.code === "stale_navigation") this.client.request({ op: "flow", flow: flow.flow }).catch((e) => this.client.fail(e));
        else this.client.fail(error);
      });
    } else if (d > depth) {
      // Forward to a scene that is gone: back to the top of the stack.
      this.ignore++;
      globalThis.history.go(depth - d);
    }
  }
}
