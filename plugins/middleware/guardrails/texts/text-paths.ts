/**
 * Where a body's texts are, as paths over its JSON: `*` is every element of an array, `**` every string
 * below (a tool call's input object: its values, never its keys). A path reaches only strings, so a
 * member that is a string in one body and an array of parts in another takes a path for each form.
 */
import type { JsonObject } from '../../../../core/kit/json';

export type TextPath = readonly string[];

/** A text in a body, and how to put another in its place. */
export interface TextSlot {
  readonly text: string;
  set(text: string): void;
}

/** An object or an array: either is indexed by its keys (an array's as strings, "0", "1"). */
type Holder = Record<string, unknown>;

const isHolder = (v: unknown): v is Holder => typeof v === 'object' && v !== null;

function slot(holder: Holder, key: string): TextSlot | undefined {
  const value = holder[key];
  if (typeof value !== 'string') return undefined;
  return { text: value, set: (text) => (holder[key] = text) };
}

function everyString(holder: Holder, out: TextSlot[]): void {
  for (const key of Object.keys(holder)) {
    const value = holder[key];
    if (isHolder(value)) everyString(value, out);
    else {
      const found = slot(holder, key);
      if (found) out.push(found);
    }
  }
}

function walk(holder: Holder, path: TextPath, at: number, out: TextSlot[]): void {
  const step = path[at]!;
  const last = at === path.length - 1;
  if (step === '**') return everyString(holder, out);
  const keys = step === '*' ? (Array.isArray(holder) ? Object.keys(holder) : []) : [step];
  for (const key of keys) {
    if (last) {
      const found = slot(holder, key);
      if (found) out.push(found);
      continue;
    }
    const next = holder[key];
    if (isHolder(next)) walk(next, path, at + 1, out);
  }
}

/** The texts `paths` reach in `body`, in the order of the paths and then of the body. */
export function textsAt(body: JsonObject, paths: readonly TextPath[]): TextSlot[] {
  const out: TextSlot[] = [];
  for (const path of paths) walk(body, path, 0, out);
  return out;
}

/** `'messages.*.content'` → its steps. */
export const paths = (...dotted: string[]): TextPath[] => dotted.map((p) => p.split('.'));
