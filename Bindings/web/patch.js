// JSON Patch (RFC 6902) and JSON Pointer (RFC 6901), applied without
// changing the document given: containers on the paths a patch touches are
// copied, everything else is shared, so a patch to one row of a long list
// costs about one row, and a patch that fails leaves the old view model whole.
// The values a patch adds are taken as they are, not copied (a later patch
// copies before it changes them): a patch is not to be changed once applied.

export class PatchError extends Error {
  constructor(message, index) {
    super(index === undefined ? message : `operation ${index}: ${message}`);
    this.name = "PatchError";
    this.index = index;
  }
}

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// "__proto__" is a key like any other in JSON: set it as an own property.
function put(o, key, value) {
  if (key === "__proto__") Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** The reference tokens of a JSON Pointer ("" is the whole document). */
export function parsePointer(pointer) {
  if (typeof pointer !== "string") throw new PatchError("a pointer is a string");
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`pointer ${JSON.stringify(pointer)} does not start with "/"`);
  const tokens = pointer.slice(1).split("/");
  if (!pointer.includes("~")) return tokens;
  return tokens.map((token) => {
    if (/~[^01]|~$/.test(token)) throw new PatchError(`pointer ${JSON.stringify(pointer)} has a bad escape`);
    return token.replace(/~1/g, "/").replace(/~0/g, "~");
  });
}

/** A pointer's tokens written back as a pointer. */
export function formatPointer(tokens) {
  return tokens.map((t) => "/" + String(t).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

function arrayIndex(array, token, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`${JSON.stringify(token)} is no array index`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length)) throw new PatchError(`index ${i} is out of bounds`);
  return i;
}

/** The value at a pointer; throws PatchError when there is none. */
export function getPointer(doc, pointer) {
  let node = doc;
  for (const token of typeof pointer === "string" ? parsePointer(pointer) : pointer) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isObject(node) && own(node, token)) node = node[token];
    else throw new PatchError(`nothing at ${JSON.stringify(typeof pointer === "string" ? pointer : formatPointer(pointer))}`);
  }
  return node;
}

/** Whether two JSON values are equal (objects whatever their key order). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => own(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (isObject(value)) {
    const out = {};
    for (const k of Object.keys(value)) put(out, k, clone(value[k]));
    return out;
  }
  return value;
}

const shallow = (c) => (Array.isArray(c) ? c.slice() : { ...c });

// Changes the container the tokens lead to: `change(parent, lastToken)`
// works on a copy of the parent, the containers above it are copied too,
// and the new root is returned. `fresh` holds containers this patch has
// copied already, which later operations change in place.
function edit(doc, tokens, fresh, change) {
  const copyOf = (c) => {
    if (fresh.has(c)) return c;
    const copy = shallow(c);
    fresh.add(copy);
    return copy;
  };
  const walk = (node, depth) => {
    if (!Array.isArray(node) && !isObject(node)) throw new PatchError(`nothing at ${JSON.stringify(formatPointer(tokens.slice(0, depth)))} to hold ${JSON.stringify(tokens[depth])}`);
    const copy = copyOf(node);
    if (depth === tokens.length - 1) {
      change(copy, tokens[depth]);
      return copy;
    }
    const token = tokens[depth];
    let key;
    if (Array.isArray(copy)) key = arrayIndex(copy, token, false);
    else if (own(copy, token)) key = token;
    else throw new PatchError(`nothing at ${JSON.stringify(formatPointer(tokens.slice(0, depth + 1)))}`);
    put(copy, key, walk(copy[key], depth + 1));
    return copy;
  };
  return walk(doc, 0);
}

function add(doc, tokens, value, fresh) {
  if (tokens.length === 0) return value;
  return edit(doc, tokens, fresh, (parent, token) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, true), 0, value);
    else put(parent, token, value);
  });
}

function remove(doc, tokens, fresh) {
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
  return edit(doc, tokens, fresh, (parent, token) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, false), 1);
    else if (own(parent, token)) delete parent[token];
    else throw new PatchError(`nothing at ${JSON.stringify(formatPointer(tokens))} to remove`);
  });
}

function replace(doc, tokens, value, fresh) {
  if (tokens.length === 0) return value;
  return edit(doc, tokens, fresh, (parent, token) => {
    if (Array.isArray(parent)) parent[arrayIndex(parent, token, false)] = value;
    else if (own(parent, token)) put(parent, token, value);
    else throw new PatchError(`nothing at ${JSON.stringify(formatPointer(tokens))} to replace`);
  });
}

// A list's elements removed or added one by one, as a diff writes them
// (removed from the highest index down, added in order), are spliced at once:
// the run of operations from `index` that each remove the element below the
// last one, or add just after the last one, in the same list. Their count
// and where they start; a run of one is left to the general path.
const RUN_LIMIT = 1 << 20;
function run(patch, index) {
  const first = patch[index];
  const slash = first.path.lastIndexOf("/");
  const parent = first.path.slice(0, slash + 1);
  const at = first.path.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(at)) return null;
  const step = first.op === "remove" ? -1 : 1;
  let next = Number(at) + step;
  let end = index + 1;
  while (end < patch.length && end - index < RUN_LIMIT) {
    const op = patch[end];
    if (!isObject(op) || op.op !== first.op || op.path !== parent + next || (first.op === "add" && !own(op, "value"))) break;
    next += step;
    end++;
  }
  return end - index > 1 ? { parent, start: Number(at), count: end - index } : null;
}

// Applies a run found by run(), or returns null when its list is not there
// or its first index is out of range: the operations then go one by one,
// and the first that fails says why.
function spliceRun(doc, patch, index, found, fresh) {
  const tokens = parsePointer(found.parent.slice(0, -1));
  let list;
  try { list = getPointer(doc, tokens); } catch { return null; }
  if (!Array.isArray(list)) return null;
  const { start, count } = found;
  if (patch[index].op === "remove") {
    if (start >= list.length || start - count + 1 < 0) return null;
    const change = (target) => { target.splice(start - count + 1, count); };
    return tokens.length === 0 ? applyToRoot(doc, change, fresh) : editList(doc, tokens, fresh, change);
  }
  if (start > list.length) return null;
  const values = [];
  for (let k = index; k < index + count; k++) values.push(patch[k].value);
  const change = (target) => { target.splice(start, 0, ...values); };
  return tokens.length === 0 ? applyToRoot(doc, change, fresh) : editList(doc, tokens, fresh, change);
}

function applyToRoot(doc, change, fresh) {
  const copy = fresh.has(doc) ? doc : shallow(doc);
  fresh.add(copy);
  change(copy);
  return copy;
}

// Changes the list at `tokens` (a copy of it, as edit() makes).
function editList(doc, tokens, fresh, change) {
  return edit(doc, tokens, fresh, (parent, token) => {
    const key = Array.isArray(parent) ? arrayIndex(parent, token, false) : token;
    const list = parent[key];
    const copy = fresh.has(list) ? list : list.slice();
    fresh.add(copy);
    change(copy);
    put(parent, key, copy);
  });
}

function replaceAt(doc, op, index, fresh) {
  try {
    return replace(doc, parsePointer(op.path), op.value, fresh);
  } catch (error) {
    if (error instanceof PatchError && error.index === undefined) throw new PatchError(error.message, index);
    throw error;
  }
}

function member(op, name, index) {
  if (!own(op, name)) throw new PatchError(`"${op.op}" needs "${name}"`, index);
  return op[name];
}

/**
 * The document a patch makes of `doc`; `doc` itself is left as it was.
 * Throws PatchError (with the operation's `index`) when an operation
 * cannot apply or a `test` fails: then nothing of the patch applies.
 */
export function applyPatch(doc, patch) {
  if (!Array.isArray(patch)) throw new PatchError("a patch is an array of operations");
  const fresh = new Set();
  let out = doc;
  // The container the last replace changed, a copy this patch made: a diff
  // replaces a row's members one after another, all under one parent.
  let last = null; // {path, container}
  for (let index = 0; index < patch.length; index++) {
    const op = patch[index];
    if (!isObject(op)) throw new PatchError("an operation is an object", index);
    if (op.op !== "replace") last = op.op === "test" ? last : null;
    else if (typeof op.path === "string" && own(op, "value") && !op.path.includes("~")) {
      const slash = op.path.lastIndexOf("/");
      const parent = op.path.slice(0, slash);
      const token = op.path.slice(slash + 1);
      const container = slash >= 0 && last && last.path === parent ? last.container : null;
      if (container && (Array.isArray(container) ? /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < container.length : own(container, token))) {
        put(container, Array.isArray(container) ? Number(token) : token, op.value);
        continue;
      }
      out = replaceAt(out, op, index, fresh);
      if (slash >= 0) last = { path: parent, container: getPointer(out, parent) };
      continue;
    }
    if ((op.op === "remove" || op.op === "add") && typeof op.path === "string" && !op.path.includes("~")) {
      const found = run(patch, index);
      const spliced = found && spliceRun(out, patch, index, found, fresh);
      if (spliced) {
        out = spliced;
        index += found.count - 1;
        continue;
      }
    }
    try {
      const tokens = parsePointer(member(op, "path", index));
      switch (op.op) {
        case "add": out = add(out, tokens, member(op, "value", index), fresh); break;
        case "remove": out = remove(out, tokens, fresh); break;
        case "replace": out = replace(out, tokens, member(op, "value", index), fresh); break;
        case "test":
          if (!jsonEqual(getPointer(out, tokens), member(op, "value", index))) throw new PatchError(`test failed at ${JSON.stringify(op.path)}`);
          break;
        case "move":
        case "copy": {
          const from = parsePointer(member(op, "from", index));
          const value = getPointer(out, from);
          if (op.op === "move") {
            if (from.length < tokens.length && from.every((t, i) => t === tokens[i])) throw new PatchError("cannot move a value into itself");
            if (from.length === tokens.length && from.every((t, i) => t === tokens[i])) break;
            out = remove(out, from, fresh);
            out = add(out, tokens, value, fresh);
          } else {
            out = add(out, tokens, clone(value), fresh);
          }
          break;
        }
        default: throw new PatchError(`unknown operation ${JSON.stringify(op.op)}`);
      }
    } catch (error) {
      if (error instanceof PatchError && error.index === undefined) throw new PatchError(error.message, index);
      throw error;
    }
  }
  return out;
}
