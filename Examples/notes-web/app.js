// The notes app in a browser: login, list, editor. Each screen is built
// once when its scene comes on top, then only updated from the view model,
// so typing keeps its focus and caret. The scenes decide; the page shows.

import { connect } from "/yaia/yaia.js";

const main = document.getElementById("app");
let screen = null; // {id, scene, root, update(viewModel, context)}
let send = () => Promise.resolve();
const loaded = new Set(); // list scenes asked to load

// Sends, and marks the button busy until the answer: a second click cannot submit twice.
function act(button, type, payload) {
  if (button) button.dataset.busy = "1";
  return send(type, payload).catch(() => {}).finally(() => {
    if (button) delete button.dataset.busy;
    app.renderNow();
  });
}

const setValue = (input, value) => { if (document.activeElement !== input && input.value !== value) input.value = value; };
const setText = (node, text) => { const t = text == null ? "" : String(text); if (node.textContent !== t) node.textContent = t; };
// Written only when it changes: `hidden` written again, even unchanged, has
// the browser work the element's style out again (`disabled` does not).
const setHidden = (node, hidden) => { if (node.hidden !== hidden) node.hidden = hidden; };
const busy = (button) => button.dataset.busy === "1";

// Each keystroke in a field is an action, and its answer a render: the
// screen finds its nodes once and writes only what changed.
function loginScreen(root) {
  const form = root.querySelector("form");
  const [email, password, submit] = [form.email, form.password, form.submit];
  const [emailError, error] = [form.querySelector('[data-for="email"]'), form.querySelector(".error")];
  email.oninput = () => send("emailChanged", email.value).catch(() => {});
  password.oninput = () => send("passwordChanged", password.value).catch(() => {});
  form.onsubmit = (event) => { event.preventDefault(); act(submit, "submit"); };
  return (vm, context) => {
    setValue(email, vm.email);
    setText(emailError, vm.emailError);
    setText(error, vm.error || (context.error && context.error.message));
    submit.disabled = !vm.canSubmit || vm.isSubmitting || busy(submit) || !context.connected;
    setText(submit, vm.isSubmitting ? "Signing in…" : "Sign in");
  };
}

// A row's height in pixels: the list draws only the rows in view (and a few
// around them), placed by index, so 10,000 notes cost what 20 do. Drawn rows
// are kept by note id: a row still in view after a patch or a scroll is
// moved, and only redrawn when its view model changed. The nodes of rows
// that went out of view are given to those that came in, and new ones made
// only when too few: a search that shows other notes writes text in nodes
// the browser has styled already, rather than make and style 14 rows anew
// (half of what a keystroke cost the page, 7 ms of the 16 of a goal).
const ROW = 60;
const OVERSCAN = 6;
const NONE = [];

// Each note's row is a child scene (notes/row) of the list, in its slot
// "rows": its view model is one element of the list's `rows`, and the list's
// `shown` says which the search shows. An action for a row goes by its path
// from the list, ["rows", ID]. A row that could not open (the runtime's
// limits, say) has no view model in `rows`: the list's update names it in
// its childErrors, and the page draws it as a row that says why.
function sendRow(listID, id, type, payload) {
  return app.sendChild(["rows", id], type, payload, listID).catch(() => {}).finally(() => app.renderNow());
}

function listScreen(root) {
  const search = root.querySelector('[name="search"]');
  const add = root.querySelector('[name="new"]');
  const viewport = root.querySelector(".viewport");
  const list = root.querySelector(".notes");
  let listID = null;
  let rows = []; // the rows' view models, in id order
  let shown = []; // the ids the search shows
  let byID = new Map(); // note id -> index in rows
  let drawn = null; // [first, last, shown, rows, failed] of the rows in the DOM
  let nodes = new Map(); // note id -> {id, li, row, update} of the rows in the DOM
  let failed = new Map(); // note id -> why its row could not open
  let errors = null; // the childErrors failed was read from
  const element = (tag, className) => {
    const e = document.createElement(tag);
    if (className) e.className = className;
    return e;
  };
  const button = (name, text, className) => {
    const b = element("button", className);
    b.type = "button";
    b.name = name;
    b.textContent = text;
    return b;
  };
  // A row's DOM, made once, then given a note (bind) and updated from its
  // view model. Its handlers act on the note it shows when they run.
  const rowNode = () => {
    const n = { id: null, li: null, row: null, update: null, bind: null };
    const li = element("li");
    const open = element("button", "open");
    const title = element("span", "title");
    const preview = element("span", "preview");
    open.append(title, preview);
    open.onclick = () => sendRow(listID, n.id, "open");
    const form = element("form", "rename");
    const draft = element("input");
    draft.name = "draft";
    draft.setAttribute("aria-label", "Title");
    draft.oninput = () => sendRow(listID, n.id, "draftChanged", draft.value);
    draft.onkeydown = (event) => { if (event.key === "Escape") sendRow(listID, n.id, "cancelRename"); };
    form.onsubmit = (event) => { event.preventDefault(); sendRow(listID, n.id, "commitRename"); };
    form.append(draft);
    const problem = element("span", "row-error");
    const tools = element("span", "tools");
    const rename = button("rename", "Rename", "quiet");
    rename.onclick = () => {
      const id = n.id;
      sendRow(listID, id, "startRename").then(() => { if (n.id === id) draft.focus(); });
    };
    const remove = button("delete", "Delete", "quiet");
    remove.onclick = () => sendRow(listID, n.id, "askDelete");
    const yes = button("confirm", "Delete it", "danger");
    yes.onclick = () => sendRow(listID, n.id, "confirmDelete");
    const no = button("keep", "Keep", "quiet");
    no.onclick = () => sendRow(listID, n.id, "cancelDelete");
    tools.append(rename, remove, yes, no);
    li.append(open, form, problem, tools);
    n.update = (r) => {
      const renaming = r.draft !== null;
      setHidden(open, renaming);
      setHidden(form, !renaming);
      if (renaming) setValue(draft, r.draft);
      draft.disabled = r.isSaving;
      setText(title, r.title);
      setText(preview, r.preview);
      setText(problem, r.error || (renaming ? r.titleError : null));
      setHidden(rename, renaming || r.confirming);
      setHidden(remove, renaming || r.confirming);
      setHidden(yes, !r.confirming);
      setHidden(no, !r.confirming);
      yes.disabled = r.isDeleting;
      li.classList.toggle("busy", r.isSaving || r.isDeleting);
    };
    n.bind = (id) => {
      n.id = id;
      n.row = null;
      open.dataset.id = id;
    };
    n.li = li;
    return n;
  };
  // A note whose row could not open: no actions, only why.
  const failedNode = (id) => {
    const li = element("li", "failed");
    li.dataset.id = id;
    const body = element("span", "body");
    const title = element("span", "failed-title");
    title.textContent = `Note ${id} could not open`;
    const problem = element("span", "row-error");
    body.append(title, problem);
    li.append(body);
    return { li, row: null, failed: true, update: (message) => setText(problem, message) };
  };
  const draw = () => {
    list.style.height = `${shown.length * ROW}px`;
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(shown.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + OVERSCAN);
    if (drawn && drawn[0] === first && drawn[1] === last && drawn[2] === shown && drawn[3] === rows && drawn[4] === failed) return;
    drawn = [first, last, shown, rows, failed];
    const wanted = [];
    const staying = new Set();
    for (let i = first; i < last; i++) {
      const id = shown[i];
      // A shown note without a row's view model is one whose row could not open.
      const r = rows[byID.get(id)] || failed.get(id) || "Its row could not open.";
      wanted.push(r);
      const n = nodes.get(id);
      if (n && Boolean(n.failed) !== (typeof r === "object")) staying.add(n);
    }
    // The rows that left the view, in the list's order, given in that order:
    // when no row stays (a search), the list's nodes stay where they are.
    // Not one that holds the focus, which must not move to another note.
    const spare = [];
    for (const n of nodes.values()) if (!staying.has(n) && !n.failed && !n.li.contains(document.activeElement)) spare.push(n);
    let given = 0;
    const kept = new Map();
    const order = [];
    for (let i = first; i < last; i++) {
      const id = shown[i];
      const r = wanted[i - first];
      const opened = typeof r === "object";
      let n = nodes.get(id);
      if (!n || kept.has(id) || !staying.has(n)) {
        n = opened ? spare[given++] || rowNode() : failedNode(id);
        if (opened) n.bind(id);
      }
      // A patch leaves an unchanged row the same object.
      if (n.row !== r) { n.update(r); n.row = r; }
      const top = `${i * ROW}px`;
      if (n.li.style.top !== top) n.li.style.top = top;
      kept.set(id, n);
      order.push(n.li);
    }
    nodes = kept;
    place(order);
  };
  // Puts the list's nodes in `order` moving as few as it can: a node taken
  // out and put back is styled anew (replacing them all cost a search 2.5
  // ms). The longest run of nodes already in order stays; the rest move.
  const place = (order) => {
    const at = new Map([...list.children].map((li, k) => [li, k]));
    const wanted = new Set(order);
    for (const li of at.keys()) if (!wanted.has(li)) li.remove();
    const run = []; // run[k]: the length of the longest run ending at order[k], and the node before it
    let end = -1;
    order.forEach((li, k) => {
      run[k] = at.has(li) ? [1, -1] : [0, -1];
      for (let j = 0; j < k && at.has(li); j++) if (run[j][0] && at.get(order[j]) < at.get(li) && run[j][0] >= run[k][0]) run[k] = [run[j][0] + 1, j];
      if (end < 0 || run[k][0] > run[end][0]) end = k;
    });
    const still = new Set();
    for (let k = end; k >= 0 && run[k][0]; k = run[k][1]) still.add(order[k]);
    let next = null;
    for (let k = order.length - 1; k >= 0; k--) {
      if (!still.has(order[k])) list.insertBefore(order[k], next);
      next = order[k];
    }
  };
  let scrolling = false;
  viewport.onscroll = () => {
    if (scrolling) return;
    scrolling = true;
    requestAnimationFrame(() => { scrolling = false; draw(); });
  };
  // The scene searches: it keeps the query and says which rows match.
  search.oninput = () => send("searchChanged", search.value).catch(() => {});
  add.onclick = () => act(add, "newNote");
  // The rows that could not open, by note id, from the list's childErrors:
  // kept the same Map while they say the same, so that the list is not drawn
  // again for each update that repeats them.
  const notice = root.querySelector(".notice");
  const readFailures = (childErrors) => {
    if (childErrors === errors) return;
    errors = childErrors;
    const now = new Map();
    const others = [];
    for (const e of childErrors) {
      const message = (e.error && e.error.message) || (e.error && e.error.code) || "could not open";
      if (e.slot === "rows" && e.key !== undefined) now.set(e.key, message);
      else others.push(message);
    }
    const same = now.size === failed.size && [...now].every(([id, m]) => failed.get(id) === m);
    if (!same) failed = now;
    const count = now.size + others.length;
    notice.hidden = count === 0;
    const messages = [...new Set([...now.values(), ...others])];
    setText(notice, count === 0 ? "" : `${count} ${count === 1 ? "note" : "notes"} could not open` + (messages.length === 1 ? ` (${messages[0]}).` : "."));
  };
  let query = null;
  return (vm, context) => {
    listID = context.id;
    readFailures(context.childErrors || NONE);
    setValue(search, vm.query);
    if (vm.query !== query) { query = vm.query; viewport.scrollTop = 0; }
    const rowsNow = vm.rows || [];
    if (rowsNow !== rows) {
      // The index is made again only when rows come or go, not when one changes.
      if (rowsNow.length !== rows.length || rowsNow.some((r, i) => r.id !== rows[i].id)) byID = new Map(rowsNow.map((r, i) => [r.id, i]));
      rows = rowsNow;
    }
    if (vm.shown !== shown || drawn === null || drawn[3] !== rows || drawn[4] !== failed) { shown = vm.shown || []; draw(); }
    setText(root.querySelector(".placeholder"), vm.placeholder);
    setText(root.querySelector(".error"), vm.error || (context.error && context.error.message));
    add.disabled = !vm.canCreate || busy(add) || !context.connected;
  };
}

function editorScreen(root) {
  const form = root.querySelector("form");
  const [title, body, save, cancel, remove] = [form.title, form.body, form.save, form.cancel, form.delete];
  title.oninput = () => send("titleChanged", title.value).catch(() => {});
  body.oninput = () => send("bodyChanged", body.value).catch(() => {});
  form.onsubmit = (event) => { event.preventDefault(); act(save, "save"); };
  cancel.onclick = () => act(cancel, "cancel");
  remove.onclick = () => act(remove, "delete");
  let focused = false;
  return (vm, context) => {
    setText(form.querySelector(".heading"), vm.heading);
    setValue(title, vm.title);
    setValue(body, vm.body);
    if (!focused) { focused = true; title.focus(); }
    setText(form.querySelector('[data-for="title"]'), vm.titleError);
    setText(form.querySelector(".counter"), vm.titleCounter);
    setText(form.querySelector(".error"), vm.error || (context.error && context.error.message));
    const working = vm.isSaving || vm.isDeleting || !context.connected;
    save.disabled = !vm.canSave || working || busy(save);
    remove.disabled = !vm.canDelete || working || busy(remove);
    cancel.disabled = working;
    setText(save, vm.isSaving ? "Saving…" : "Save");
  };
}

const screens = { "notes/login": ["login", loginScreen], "notes/list": ["list", listScreen], "notes/editor": ["editor", editorScreen] };

const [offline, who, logout] = ["offline", "who", "logout"].map((id) => document.getElementById(id));

function render(vm, sendAction, context) {
  send = sendAction;
  setHidden(offline, context.connected);
  const list = context.stack.find((e) => e.scene === "notes/list");
  setText(who, list && list.viewModel ? list.viewModel.user : "");
  setHidden(logout, context.scene !== "notes/list");
  if (!vm || !screens[context.scene]) return;
  if (!screen || screen.id !== context.id) {
    const [template, make] = screens[context.scene];
    const root = document.getElementById(template).content.cloneNode(true).firstElementChild;
    const wrapper = document.createElement("div");
    wrapper.className = "screen";
    wrapper.dataset.scene = context.scene;
    wrapper.append(root);
    main.replaceChildren(wrapper);
    screen = { id: context.id, update: make(wrapper) };
  }
  screen.update(vm, context);
  // For whoever measures the page: the screen now shows this view model.
  main.dispatchEvent(new CustomEvent("rendered", { detail: { scene: context.scene, viewModel: vm } }));
  // The list asks for the notes when it appears.
  if (context.scene === "notes/list" && !loaded.has(context.id)) {
    loaded.add(context.id);
    send("load").catch(() => {});
  }
}

logout.onclick = () => send("logout").catch(() => {});
// Patches: a keystroke in the search sends what changed in the list, not the list.
const app = connect({ start: "notes/login", view: "patch", render });
window.app = app; // for the console, and for tests

