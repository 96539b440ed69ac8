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
const busy = (button) => button.dataset.busy === "1";

function loginScreen(root) {
  const form = root.querySelector("form");
  const [email, password, submit] = [form.email, form.password, form.submit];
  email.oninput = () => send("emailChanged", email.value).catch(() => {});
  password.oninput = () => send("passwordChanged", password.value).catch(() => {});
  form.onsubmit = (event) => { event.preventDefault(); act(submit, "submit"); };
  return (vm, context) => {
    setValue(email, vm.email);
    setText(form.querySelector('[data-for="email"]'), vm.emailError);
    setText(form.querySelector(".error"), vm.error || (context.error && context.error.message));
    submit.disabled = !vm.canSubmit || vm.isSubmitting || busy(submit) || !context.connected;
    setText(submit, vm.isSubmitting ? "Signing in…" : "Sign in");
  };
}

// A row's height in pixels: the list draws only the rows in view (and a few
// around them), placed by index, so 10,000 notes cost what 20 do. Drawn rows
// are kept by note id: a row still in view after a patch or a scroll is
// moved, not made again.
const ROW = 60;
const OVERSCAN = 6;

function listScreen(root) {
  const search = root.querySelector('[name="search"]');
  const add = root.querySelector('[name="new"]');
  const viewport = root.querySelector(".viewport");
  const list = root.querySelector(".notes");
  let notes = [];
  let drawn = null; // [first, last, notes] of the rows in the DOM
  let rows = new Map(); // note id -> {li, note} of the rows in the DOM
  const row = (n) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.dataset.id = n.id;
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = n.title;
    const preview = document.createElement("span");
    preview.className = "preview";
    preview.textContent = n.preview;
    b.append(title, preview);
    b.onclick = () => act(b, "open", n.id);
    li.append(b);
    return li;
  };
  const draw = () => {
    list.style.height = `${notes.length * ROW}px`;
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(notes.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + OVERSCAN);
    if (drawn && drawn[0] === first && drawn[1] === last && drawn[2] === notes) return;
    drawn = [first, last, notes];
    const kept = new Map();
    const nodes = [];
    for (let i = first; i < last; i++) {
      const n = notes[i];
      let r = rows.get(n.id);
      // A patch leaves an unchanged row the same object; a whole view model makes it anew.
      if (!r || kept.has(n.id) || !(r.note === n || (r.note.title === n.title && r.note.preview === n.preview))) r = { li: row(n), note: n };
      r.note = n;
      const top = `${i * ROW}px`;
      if (r.li.style.top !== top) r.li.style.top = top;
      kept.set(n.id, r);
      nodes.push(r.li);
    }
    rows = kept;
    const shown = list.children;
    if (nodes.length !== shown.length || nodes.some((li, k) => shown[k] !== li)) list.replaceChildren(...nodes);
  };
  let scrolling = false;
  viewport.onscroll = () => {
    if (scrolling) return;
    scrolling = true;
    requestAnimationFrame(() => { scrolling = false; draw(); });
  };
  // The scene searches: it keeps the query and shows the notes that match.
  search.oninput = () => send("searchChanged", search.value).catch(() => {});
  add.onclick = () => act(add, "newNote");
  let query = null;
  return (vm, context) => {
    setValue(search, vm.query);
    if (vm.query !== query) { query = vm.query; viewport.scrollTop = 0; }
    if (vm.notes !== notes) { notes = vm.notes; draw(); }
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

function render(vm, sendAction, context) {
  send = sendAction;
  document.getElementById("offline").hidden = context.connected;
  const list = context.stack.find((e) => e.scene === "notes/list");
  setText(document.getElementById("who"), list && list.viewModel ? list.viewModel.user : "");
  const logout = document.getElementById("logout");
  logout.hidden = context.scene !== "notes/list";
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

document.getElementById("logout").onclick = () => send("logout").catch(() => {});
// Patches: a keystroke in the search sends what changed in the list, not the list.
const app = connect({ start: "notes/login", view: "patch", render });
window.app = app; // for the console, and for tests
