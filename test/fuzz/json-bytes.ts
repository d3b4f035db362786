/**
 * JSON bodies as exact bytes. A body is a tree whose objects are ordered lists of entries (so a key may
 * appear twice, and `__proto__` is just a key), and whose leaves may be raw byte fragments written as
 * they are: invalid UTF-8 inside a string, `1e400` as text, 300,000 levels of nesting. JSON.stringify can
 * express none of these.
 */

/** Bytes written into the body as they are. */
export class Raw {
  constructor(readonly bytes: Buffer) {}
}

/** A JSON object as an ordered list of entries; keys may repeat, and a key may be raw bytes. */
export class Obj {
  constructor(readonly entries: readonly (readonly [string | Raw, Tree])[]) {}
}

export type Tree = null | boolean | number | string | Raw | Obj | readonly Tree[];

export type Path = readonly (string | number)[];

export const raw = (text: string | Buffer): Raw => new Raw(Buffer.isBuffer(text) ? text : Buffer.from(text));

/** A tree from a plain JSON value (objects become Obj, in key order). */
export function fromJson(value: unknown): Tree {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : raw(String(value));
  if (Array.isArray(value)) return value.map(fromJson);
  if (value instanceof Raw || value instanceof Obj) return value;
  if (typeof value === 'object') {
    return new Obj(Object.keys(value).map((k) => [k, fromJson((value as Record<string, unknown>)[k])]));
  }
  throw new Error(`not JSON: ${typeof value}`);
}

function write(tree: Tree, out: Buffer[]): void {
  if (tree instanceof Raw) out.push(tree.bytes);
  else if (tree instanceof Obj) {
    out.push(Buffer.from('{'));
    tree.entries.forEach(([key, value], i) => {
      if (i > 0) out.push(Buffer.from(','));
      out.push(key instanceof Raw ? key.bytes : Buffer.from(JSON.stringify(key)), Buffer.from(':'));
      write(value, out);
    });
    out.push(Buffer.from('}'));
  } else if (Array.isArray(tree)) {
    out.push(Buffer.from('['));
    (tree as readonly Tree[]).forEach((item, i) => {
      if (i > 0) out.push(Buffer.from(','));
      write(item, out);
    });
    out.push(Buffer.from(']'));
  } else if (typeof tree === 'number' && Object.is(tree, -0)) out.push(Buffer.from('-0'));
  else out.push(Buffer.from(JSON.stringify(tree)));
}

export function encode(tree: Tree): Buffer {
  const out: Buffer[] = [];
  write(tree, out);
  return Buffer.concat(out);
}

/** The value at `path`, or undefined (raw fragments are not looked into). */
export function get(tree: Tree, path: Path): Tree | undefined {
  let at: Tree | undefined = tree;
  for (const step of path) {
    if (at instanceof Obj) {
      const found: (readonly [string | Raw, Tree])[] = at.entries.filter(([k]) => k === step);
      at = found.length ? found[found.length - 1]![1] : undefined;
    } else if (Array.isArray(at) && typeof step === 'number') at = (at as readonly Tree[])[step];
    else return undefined;
  }
  return at;
}

/**
 * A copy of `tree` with `change` applied to the object or array at `path` (which must exist). Objects
 * and arrays along the path are copied; the rest is shared.
 */
function edit(tree: Tree, path: Path, change: (parent: Tree) => Tree): Tree {
  if (path.length === 0) return change(tree);
  const [step, ...rest] = path;
  if (tree instanceof Obj) {
    let last = -1;
    tree.entries.forEach(([k], i) => (k === step ? (last = i) : undefined));
    if (last < 0) throw new Error(`no key ${String(step)}`);
    return new Obj(tree.entries.map((e, i) => (i === last ? [e[0], edit(e[1], rest, change)] : e)));
  }
  if (Array.isArray(tree) && typeof step === 'number' && step < tree.length) {
    return (tree as readonly Tree[]).map((item, i) => (i === step ? edit(item, rest, change) : item));
  }
  throw new Error(`cannot follow ${String(step)}`);
}

/** Sets `key` of the object at `path` (replacing every entry of that key, or appending it). */
export function setKey(tree: Tree, path: Path, key: string, value: Tree): Tree {
  return edit(tree, path, (parent) => {
    if (!(parent instanceof Obj)) throw new Error('not an object');
    const kept = parent.entries.filter(([k]) => k !== key);
    const had = kept.length !== parent.entries.length;
    if (!had) return new Obj([...parent.entries, [key, value]]);
    const at = parent.entries.findIndex(([k]) => k === key);
    const out = [...kept];
    out.splice(at, 0, [key, value]);
    return new Obj(out);
  });
}

/** Removes every entry of `key` from the object at `path`. */
export function deleteKey(tree: Tree, path: Path, key: string): Tree {
  return edit(tree, path, (parent) => {
    if (!(parent instanceof Obj)) throw new Error('not an object');
    return new Obj(parent.entries.filter(([k]) => k !== key));
  });
}

/** Adds one more entry to the object at `path`, at `position` (0 = first), even if the key is there. */
export function addEntry(tree: Tree, path: Path, key: string | Raw, value: Tree, position?: number): Tree {
  return edit(tree, path, (parent) => {
    if (!(parent instanceof Obj)) throw new Error('not an object');
    const out = [...parent.entries];
    out.splice(position ?? out.length, 0, [key, value]);
    return new Obj(out);
  });
}

/** Replaces the item at `index` of the array at `path`. */
export function setItem(tree: Tree, path: Path, index: number, value: Tree): Tree {
  return edit(tree, path, (parent) => {
    if (!Array.isArray(parent)) throw new Error('not an array');
    return (parent as readonly Tree[]).map((item, i) => (i === index ? value : item));
  });
}

/** `depth` levels of arrays (`[[[…1…]]]`) or objects (`{"a":{"a":…1…}}`), as one raw fragment. */
export function nested(depth: number, shape: 'array' | 'object'): Raw {
  const [open, close] = shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
  return raw(open.repeat(depth) + '1' + close.repeat(depth));
}

/** A JSON string whose bytes include `bad` (invalid UTF-8) between `before` and `after`. */
export function badUtf8String(before: string, bad: Buffer, after: string): Raw {
  const quoted = (s: string): Buffer => Buffer.from(JSON.stringify(s).slice(1, -1));
  return raw(Buffer.concat([Buffer.from('"'), quoted(before), bad, quoted(after), Buffer.from('"')]));
}
