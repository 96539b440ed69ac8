// JSON Patch (RFC 6902) and JSON Pointer (RFC 6901), applied without
// changing the document given: containers on the paths a patch touches are
// copied, everything else is shared, so a patch to one row of a long list
// costs about one row, and a patch that fails leaves the old view model whole.

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
  return pointer.slice(1).split("/").map((token) => {
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
  patch.forEach((op, index) => {
    if (!isObject(op)) throw new PatchError("an operation is an object", index);
    try {
      const tokens = parsePointer(member(op, "path", index));
      switch (op.op) {
        case "add": out = add(out, tokens, clone(member(op, "value", index)), fresh); break;
        case "remove": out = remove(out, tokens, fresh); break;
        case "replace": out = replace(out, tokens, clone(member(op, "value", index)), fresh); break;
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
  });
  return out;
}
