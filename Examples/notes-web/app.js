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

function listScreen(root) {
  const search = root.querySelector('[name="search"]');
  const add = root.querySelector('[name="new"]');
  const list = root.querySelector(".notes");
  let notes = [];
  const draw = () => {
    // Search is the page's own filter over the notes the scene shows.
    const q = search.value.trim().toLowerCase();
    const shown = q ? notes.filter((n) => (n.title + "\n" + n.preview).toLowerCase().includes(q)) : notes;
    list.replaceChildren(...shown.map((n) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.dataset.id = n.id;
      b.innerHTML = '<span class="title"></span><span class="preview"></span>';
      b.querySelector(".title").textContent = n.title;
      b.querySelector(".preview").textContent = n.preview;
      b.onclick = () => act(b, "open", n.id);
      li.append(b);
      return li;
    }));
    setText(root.querySelector(".placeholder"), notes.length && !shown.length ? `No note matches “${search.value.trim()}”` : null);
  };
  search.oninput = draw;
  add.onclick = () => act(add, "newNote");
  return (vm, context) => {
    if (vm.notes !== notes) { notes = vm.notes; draw(); }
    if (!notes.length) setText(root.querySelector(".placeholder"), vm.placeholder);
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
  // The list asks for the notes when it appears.
  if (context.scene === "notes/list" && !loaded.has(context.id)) {
    loaded.add(context.id);
    send("load").catch(() => {});
  }
}

document.getElementById("logout").onclick = () => send("logout").catch(() => {});
const app = connect({ start: "notes/login", render });
window.app = app; // for the console, and for tests
