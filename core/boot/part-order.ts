/**
 * The order a gateway's parts start in: each after every part it needs, and, where the needs leave two
 * parts unordered, in the order they were added, so that the same gateway starts (and logs) the same way
 * every time. Stopping walks the same order backwards.
 */
import type { Part } from './part';

/**
 * `parts` in start order. `strict` (when starting) throws on a need that names no part and on parts that
 * need each other in a cycle, naming them; otherwise (when stopping) such a need is ignored and a cycle is
 * broken at its part added first, so that a gateway whose start failed can always be stopped.
 */
export function partOrder<T extends { readonly part: Part }>(entries: readonly T[], strict: boolean): T[] {
  const byName = new Map(entries.map((entry) => [entry.part.name, entry]));
  if (strict) checkNeeds(entries, byName);
  const placed = new Set<T>();
  const order: T[] = [];
  const ready = (entry: T): boolean =>
    (entry.part.needs ?? []).every((name) => {
      const needed = byName.get(name);
      return needed === undefined || placed.has(needed);
    });
  while (order.length < entries.length) {
    const waiting = entries.filter((entry) => !placed.has(entry));
    const next = waiting.find(ready);
    if (next === undefined && strict) throw new Error(`lifecycle: ${cycleOf(waiting, byName)}`);
    const entry = next ?? waiting[0]!;
    placed.add(entry);
    order.push(entry);
  }
  return order;
}

/** Two parts of one name, or a need that names no part: the gateway was composed wrongly. */
function checkNeeds<T extends { readonly part: Part }>(entries: readonly T[], byName: Map<string, T>): void {
  const problems: string[] = [];
  if (byName.size < entries.length) {
    const names = entries.map((entry) => entry.part.name);
    const twice = names.filter((name, i) => names.indexOf(name) !== i);
    problems.push(`more than one part is named ${[...new Set(twice)].map(quoted).join(', ')}`);
  }
  for (const { part } of entries) {
    for (const name of part.needs ?? []) {
      if (!byName.has(name)) problems.push(`${quoted(part.name)} needs ${quoted(name)}, which is no part`);
    }
  }
  if (problems.length > 0) throw new Error(`lifecycle: ${problems.join('; ')}`);
}

/**
 * The cycle among parts none of which can start: each of them waits on another of them, so following
 * those needs from the first comes back to a part already seen.
 */
function cycleOf<T extends { readonly part: Part }>(waiting: readonly T[], byName: Map<string, T>): string {
  const path: T[] = [];
  let entry = waiting[0]!;
  while (!path.includes(entry)) {
    path.push(entry);
    const needed = (entry.part.needs ?? []).map((name) => byName.get(name));
    entry = needed.find((n): n is T => n !== undefined && waiting.includes(n))!;
  }
  const cycle = [...path.slice(path.indexOf(entry)), entry].map((e) => quoted(e.part.name));
  return `parts need each other in a cycle: ${cycle.join(' needs ')}`;
}

const quoted = (name: string): string => `"${name}"`;
