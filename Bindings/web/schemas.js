// Scene types' schemas ({"op":"schema"}): the actions a scene document
// declares, so that a page's typo is refused in the page, in the runtime's
// words, before anything is sent. Swift and pack scenes declare nothing:
// their actions go to the runtime unchecked here.

function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The candidate a word is a plausible typo of, as the runtime's "did you mean" picks it. */
export function nearest(word, candidates) {
  if (!word || word.length > 256) return null;
  const budget = Math.max(1, Math.floor(word.length / 3));
  let best = null;
  for (const c of candidates) {
    if (Math.abs(c.length - word.length) > budget) continue;
    const d = distance(word, c);
    if (d <= budget && (best === null || d < best[0] || (d === best[0] && c < best[1]))) best = [d, c];
  }
  return best ? best[1] : null;
}

/** Action type names of a schema's `$defs/action`, or null when it declares none. */
export function declaredActions(response) {
  if (!response || response.declared !== true) return null;
  const action = response.schema && response.schema.$defs && response.schema.$defs.action;
  const options = action && (action.oneOf || action.anyOf);
  if (!Array.isArray(options)) return null;
  const names = [];
  for (const option of options) {
    const type = option && option.properties && option.properties.type;
    if (!type || typeof type.const !== "string") return null;
    names.push(type.const);
  }
  return names;
}

export class Schemas {
  constructor(client) {
    this.client = client;
    this.byName = new Map(); // scene type -> Promise of action names or null
  }

  actionNames(name) {
    if (!this.byName.has(name)) {
      const answer = this.client.request({ op: "schema", scene: name }).then(declaredActions, () => null);
      this.byName.set(name, answer);
    }
    return this.byName.get(name);
  }

  /** The runtime's error for sending `action` to a scene of type `name`, or null. */
  async check(name, action) {
    const names = await this.actionNames(name);
    if (!names || typeof action.type !== "string" || names.includes(action.type)) return null;
    const near = nearest(action.type, names);
    return {
      code: "unknown_action",
      message: `unknown action type "${action.type}"` + (near ? `; did you mean "${near}"?` : ""),
      at: "/action/type",
    };
  }
}
