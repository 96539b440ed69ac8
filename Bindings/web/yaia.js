// yaia.js: a browser tab's side of a Yaia web session (docs/web.md). No
// dependencies, no build step: `import { connect } from "/yaia/yaia.js"`.
//
//   const app = connect({ start: "notes/login", view: "patch", render(viewModel, send, context) { ... } });
//
// It keeps each scene's view model (whole, or patched when the runtime sends
// patches: `view: "patch"` asks for them), follows the flow's stack with the
// browser's history, reconnects and resumes the session after a reload or a
// dropped socket. A scene with child slots keeps the `childErrors` of its
// last update (children that could not open: `{slot, key?, error}` each,
// docs/composition.md); render reads the top scene's as
// `context.childErrors`, each stack entry's as its `childErrors`, any
// scene's with `client.childErrorsOf(id)`. An update without them clears them.

import { applyPatch, PatchError } from "./patch.js";
import { FlowHistory } from "./history.js";
import { Schemas } from "./schemas.js";

export { applyPatch, PatchError };

/** A refusal: the runtime's error envelope, or the page's own in its words. */
export class YaiaError extends Error {
  constructor(error) {
    super(error && error.message ? error.message : "request failed");
    this.name = "YaiaError";
    this.code = (error && error.code) || "internal";
    this.at = error ? error.at : undefined;
    this.error = error || {};
  }
}

const SESSION_KEY = "yaia.session";
// Set as the page goes away: the next page of this tab (a reload) may take
// the session over even if the server has not yet seen the old socket close.
// A duplicated tab copies sessionStorage while its original is still there,
// so it finds no mark and gets a session of its own.
const LEAVING_KEY = "yaia.leaving";
// The close code of a socket whose session another socket took over.
const TAKEN_OVER = 4000;
// What a scene without child errors has: one array, never changed, so a page may compare with ===.
const NO_ERRORS = Object.freeze([]);

// Runs `fn` in a task of its own, soon: a message to itself, which browsers
// deliver without setTimeout's clamping.
const afterMicrotasks = (() => {
  if (typeof globalThis.MessageChannel !== "function") return (fn) => setTimeout(fn, 0);
  const channel = new MessageChannel();
  const queue = [];
  channel.port1.onmessage = () => { const fn = queue.shift(); if (fn) fn(); };
  return (fn) => { queue.push(fn); channel.port2.postMessage(0); };
})();

export class Client {
  constructor(options = {}) {
    this.options = options;
    this.url = options.url || Client.defaultURL();
    this.storage = options.storage === undefined ? globalThis.sessionStorage : options.storage;
    this.scenes = new Map(); // id -> {id, name, seq, viewModel}
    this.childErrors = new Map(); // scene id -> {seq, errors} of its last update that had any
    this.flow = null; // {flow, version, stack: [{id, scene, presentation}]}
    this.pending = new Map(); // tag -> {resolve, reject, request}
    this.waiting = []; // requests made while no session was ready
    this.nextTag = 1;
    this.connected = false;
    this.ready = false;
    this.error = null;
    this.session = null;
    this.resumed = false;
    this.backoff = 100;
    this.closedByPage = false;
    this.renderQueued = false;
    this.busyUndrawn = false; // a request went out since the last render
    this.schemas = new Schemas(this);
    this.history = options.history === false ? null : new FlowHistory(this, options);
    this.takeover = false;
    if (this.storage) {
      const key = this.storage.getItem(SESSION_KEY);
      this.takeover = key !== null && this.storage.getItem(LEAVING_KEY) === key;
      this.storage.removeItem(LEAVING_KEY);
      globalThis.addEventListener?.("pagehide", () => { if (this.session) this.storage.setItem(LEAVING_KEY, this.session); });
    }
    this.whenReady = new Promise((resolve) => { this.readyResolve = resolve; });
    this.open();
  }

  static defaultURL() {
    const loc = globalThis.location;
    const url = new URL("/ws", loc.href);
    url.protocol = loc.protocol === "https:" ? "wss:" : "ws:";
    const token = new URLSearchParams(loc.search).get("token");
    if (token) url.searchParams.set("token", token);
    return url.href;
  }

  // -- the socket

  open() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 100;
      const hello = { op: "hello", tag: 0 };
      const key = this.storage && this.storage.getItem(SESSION_KEY);
      if (key) hello.session = key;
      if (key && this.takeover) hello.takeover = true;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      // Another page of this tab has the session now: coming back would take it from that page.
      if (event.code === TAKEN_OVER) this.closedByPage = true;
      this.connected = this.ready = false;
      for (const [, p] of this.pending) p.reject(new YaiaError({ code: "disconnected", message: "the connection closed before the answer came" }));
      this.pending.clear();
      this.scheduleRender();
      if (!this.closedByPage) setTimeout(() => this.open(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 5000);
    };
  }

  /** Closes the socket for good (the session is kept for a reload). */
  close() {
    this.closedByPage = true;
    if (this.ws) this.ws.close();
  }

  receive(text) {
    let frame;
    try { frame = JSON.parse(text); } catch { return; }
    if (frame === null || typeof frame !== "object") return;
    if (frame.op === "hello" || frame.op === "sync") this.resync(frame);
    else this.absorb(frame);
    const waiter = frame.tag !== undefined ? this.pending.get(frame.tag) : undefined;
    if (waiter) {
      this.pending.delete(frame.tag);
      if (frame.ok === true) waiter.resolve(frame);
      else waiter.reject(new YaiaError(frame.error));
    } else if (frame.ok === false) {
      this.fail(new YaiaError(frame.error));
    }
    this.scheduleRender();
  }

  // Everything the session holds, whole: on connect and after a gap.
  resync(frame) {
    if (frame.ok !== true) { this.fail(new YaiaError(frame.error)); return; }
    this.scenes.clear();
    for (const s of frame.scenes || []) this.scenes.set(s.scene, { id: s.scene, name: s.name, seq: s.seq, viewModel: s.viewModel });
    this.flow = null;
    for (const f of frame.flows || []) this.setFlow(f); // a page has one flow: the last started
    // A view model given whole says nothing of children: the errors of a
    // scene whose seq shows it has not reduced since still stand; any
    // other's (a flow's stack gives no seq) are not known any more.
    for (const [id, kept] of this.childErrors) {
      const s = this.scenes.get(id);
      if (!s || s.seq === undefined || s.seq !== kept.seq) this.childErrors.delete(id);
    }
    if (frame.op === "hello") {
      this.session = frame.session;
      this.resumed = frame.resumed;
      this.takeover = true; // the key is this page's own now: a reconnect may take it back
      if (this.storage) this.storage.setItem(SESSION_KEY, frame.session);
      this.connected = this.ready = true;
      this.start = this.options.start || frame.start;
      const queued = this.waiting.splice(0);
      for (const item of queued) this.transmit(item);
      this.readyResolve();
      if (!this.flow && this.start) this.startFlow();
    }
  }

  async startFlow() {
    const start = { op: "start", scene: this.start };
    if (this.options.view) start.view = this.options.view;
    const started = await this.request(start);
    const path = this.history ? this.history.linkPath() : null;
    if (path && path.length) await this.request({ op: "link", flow: started.flow, path }).catch((e) => this.fail(e));
    return started;
  }

  // An answer or event: the view models, flow and errors it carries.
  absorb(frame) {
    if (frame.dropped) { this.requestSync(); return; }
    if (frame.event === "error") { this.fail(new YaiaError(frame.error)); return; }
    if (Array.isArray(frame.stack) && frame.flow !== undefined) this.setFlow(frame);
    if (frame.scene !== undefined && typeof frame.scene === "number") {
      this.update(frame);
      this.keepChildErrors(frame);
    }
    if (frame.closed && frame.scene !== undefined) this.forget(frame.scene);
  }

  // An update (an answer or event of a reduction: it always lists its
  // effects; a view or state answer does not) says which children could
  // not open; one that says nothing says none could. An older update than
  // the last one kept changes nothing.
  keepChildErrors(u) {
    if (u.ok !== true || !Array.isArray(u.effects)) return;
    // A scene the page no longer holds (popped): nothing to keep. A child is held in its top scene.
    if (u.top === undefined && !this.scenes.has(u.scene)) { this.childErrors.delete(u.scene); return; }
    const kept = this.childErrors.get(u.scene);
    if (kept && typeof u.seq === "number" && typeof kept.seq === "number" && u.seq < kept.seq) return;
    if (Array.isArray(u.childErrors) && u.childErrors.length) this.childErrors.set(u.scene, { seq: u.seq, errors: u.childErrors });
    else this.childErrors.delete(u.scene);
  }

  /** The childErrors of the scene's last update: `[{slot, key?, error}]`, empty when none. */
  childErrorsOf(id) {
    const kept = this.childErrors.get(id);
    return kept ? kept.errors : NO_ERRORS;
  }

  forget(id) {
    this.scenes.delete(id);
    this.childErrors.delete(id);
  }

  setFlow(f) {
    if (this.flow && this.flow.flow === f.flow && f.version < this.flow.version) return; // an older stack
    const ids = new Set(f.stack.map((e) => e.id));
    if (this.flow) for (const e of this.flow.stack) if (!ids.has(e.id)) this.forget(e.id);
    for (const e of f.stack) {
      const known = this.scenes.get(e.id);
      // A stack's view model without a seq may be newer than the one the
      // next patch starts from (a pop's result is in it, and its update comes
      // next): it is taken for a scene the client does not hold, and never
      // over one it holds, which that update brings forward.
      if (e.viewModel !== undefined && (!known || (e.seq !== undefined && (known.seq === undefined || e.seq >= known.seq))))
        this.scenes.set(e.id, { id: e.id, name: e.scene, seq: e.seq, viewModel: e.viewModel });
    }
    this.flow = { flow: f.flow, version: f.version, name: f.name, stack: f.stack.map((e) => ({ id: e.id, scene: e.scene, presentation: e.presentation })) };
    if (this.history) this.history.follow(this.flow);
  }

  // A scene update: a whole view model, or a patch (viewPatch) to the one
  // the client holds, that of seq viewBase. Any other base is a gap: the
  // client asks for the view model whole (docs/abi.md, "Patch mode").
  update(u) {
    if (u.top !== undefined && typeof u.viewAt === "string") {
      this.place(u);
      return;
    }
    const known = this.scenes.get(u.scene);
    if (u.viewModel !== undefined) {
      if (!known || known.seq === undefined || u.seq === undefined || u.seq >= known.seq)
        this.scenes.set(u.scene, { id: u.scene, name: (known && known.name) || u.name, seq: u.seq, viewModel: u.viewModel });
      return;
    }
    if (!Array.isArray(u.viewPatch)) return;
    // A scene the flow no longer holds (the update that popped it): nothing to keep.
    if (!known && this.flow && !this.flow.stack.some((e) => e.id === u.scene)) return;
    if (known && known.seq === u.viewBase && known.viewModel !== undefined) {
      try {
        known.viewModel = applyPatch(known.viewModel, u.viewPatch);
        known.seq = u.seq;
        return;
      } catch (error) {
        if (!(error instanceof PatchError)) throw error;
      }
    } else if (known && typeof u.seq === "number" && known.seq >= u.seq) {
      return; // older than what the client holds
    }
    this.requestView(u.scene);
  }

  // A child scene's update: its view model sits in its top scene's at
  // viewAt, where the runtime holds it too (the top's next patch starts
  // there); its patch, or its whole view model, goes in there
  // (docs/composition.md, "View models that nest").
  place(u) {
    const top = this.scenes.get(u.top);
    if (!top || top.viewModel === undefined) return;
    let ops;
    if (u.viewModel !== undefined) ops = [{ op: "replace", path: u.viewAt, value: u.viewModel }];
    else if (Array.isArray(u.viewPatch)) ops = u.viewPatch.map((op) => under(u.viewAt, op));
    else return;
    try {
      top.viewModel = applyPatch(top.viewModel, ops);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      this.requestView(u.top);
    }
  }

  requestView(id) {
    this.request({ op: "view", scene: id })
      .catch((e) => (e.code === "unknown_op" ? this.request({ op: "state", scene: id }) : Promise.reject(e)))
      .catch((e) => this.fail(e));
  }

  requestSync() {
    this.request({ op: "sync" }).catch((e) => this.fail(e));
  }

  // -- requests

  /** Sends a request (the C ABI's JSON); resolves with the answer, rejects with YaiaError. */
  request(request) {
    return new Promise((resolve, reject) => {
      const item = { request: { ...request, tag: this.nextTag++ }, resolve, reject };
      if (this.ready && this.ws.readyState === WebSocket.OPEN) this.transmit(item);
      else this.waiting.push(item);
      this.scheduleBusyRender();
    });
  }

  transmit(item) {
    this.pending.set(item.request.tag, item);
    this.ws.send(JSON.stringify(item.request));
  }

  /** Sends an action to the flow's top scene (or to `scene`), checked first
   * against the scene's declared actions: an unknown one is refused here. */
  async send(type, payload, scene) {
    const target = scene !== undefined ? this.scenes.get(scene) : this.top();
    const action = payload === undefined ? { type } : { type, payload };
    try {
      if (target) {
        const refusal = await this.schemas.check(target.name, action);
        if (refusal) throw new YaiaError(refusal);
      }
      const request = scene === undefined && this.flow ? { op: "send", flow: this.flow.flow, action } : { op: "send", scene: target ? target.id : scene, action };
      const answer = await this.request(request);
      this.error = null;
      return answer;
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  /** Sends an action to a child scene by its path from `scene` (the flow's
   * top scene when omitted): `path` is [SLOT, KEY?, ...] (docs/composition.md). */
  async sendChild(path, type, payload, scene) {
    const top = scene !== undefined ? scene : (this.top() || {}).id;
    const action = payload === undefined ? { type } : { type, payload };
    try {
      const answer = await this.request({ op: "send", scene: top, path, action });
      this.error = null;
      return answer;
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  /** Functions named after the actions the scene type declares: actions.emailChanged("a@b.c"). */
  async actions(sceneName) {
    const names = await this.schemas.actionNames(sceneName);
    const out = {};
    for (const name of names || []) out[name] = (payload) => this.send(name, payload);
    return out;
  }

  top() {
    if (this.flow && this.flow.stack.length) return this.scenes.get(this.flow.stack[this.flow.stack.length - 1].id);
    for (const s of this.scenes.values()) return s;
    return undefined;
  }

  fail(error) {
    this.error = error;
    if (this.options.onError) this.options.onError(error);
    this.scheduleRender();
  }

  // -- rendering: once per burst of frames, after they are all applied

  // Drawn in a task of its own, after the page's reactions to what came (a
  // send's caller resumes in a microtask): the caller has its answer without
  // waiting for the draw, and what it does with it is drawn in the same render.
  scheduleRender() {
    if (this.renderQueued || !this.options.render) return;
    this.renderQueued = true;
    afterMicrotasks(() => {
      this.renderQueued = false;
      this.renderNow();
    });
  }

  // A request changes only `busy`, which nothing shows before the next
  // frame is painted: it is drawn then, or by the render of its answer when
  // that comes first (on loopback it mostly does), not by a render of its own.
  scheduleBusyRender() {
    if (this.busyUndrawn || !this.options.render) return;
    if (typeof globalThis.requestAnimationFrame !== "function") { this.scheduleRender(); return; }
    this.busyUndrawn = true;
    globalThis.requestAnimationFrame(() => { if (this.busyUndrawn) this.renderNow(); });
  }

  renderNow() {
    this.busyUndrawn = false;
    const top = this.top();
    const context = {
      client: this,
      scene: top ? top.name : null,
      id: top ? top.id : null,
      stack: this.flow ? this.flow.stack.map((e) => ({ ...e, viewModel: (this.scenes.get(e.id) || {}).viewModel, childErrors: this.childErrorsOf(e.id) })) : [],
      childErrors: top ? this.childErrorsOf(top.id) : NO_ERRORS,
      connected: this.connected,
      busy: this.pending.size + this.waiting.length > 0,
      error: this.error,
    };
    this.options.render(top ? top.viewModel : null, (type, payload) => this.send(type, payload), context);
  }
}

/** Connects a page to its session; see Client. */
// A child's patch operation moved under its place `at` in its top scene's view model.
function under(at, op) {
  if (op === null || typeof op !== "object") return op; // applyPatch reports it
  const moved = { ...op };
  if (typeof op.path === "string") moved.path = at + op.path;
  if (typeof op.from === "string") moved.from = at + op.from;
  return moved;
}

export function connect(options) {
  return new Client(options);
}
