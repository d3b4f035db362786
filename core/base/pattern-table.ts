/**
 * A table by name or `*` pattern, as gateway.yaml writes them (`prices:`, a section's per-tool prices):
 * the exact name's entry first, else the first pattern's that matches, in the table's order. The
 * patterns compile once, with the table.
 */
import { globMatcher } from './glob';

export class PatternTable<V> {
  private readonly patterns: readonly (readonly [(name: string) => boolean, V])[];

  constructor(private readonly table: Readonly<Record<string, V>>) {
    this.patterns = Object.entries(table).map(([pattern, value]) => [globMatcher(pattern), value] as const);
  }

  get(name: string): V | undefined {
    if (Object.hasOwn(this.table, name)) return this.table[name];
    return this.patterns.find(([matches]) => matches(name))?.[1];
  }
}
