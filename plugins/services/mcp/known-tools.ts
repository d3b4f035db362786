/**
 * The tools each server listed to this instance, so the metrics label a call with its tool only when the
 * server has one of that name: a client calling made-up names (through a `*` the section allows) cannot
 * grow the metrics without bound. Kept across reloads.
 */
export const UNLISTED = '_unlisted';

export class KnownTools {
  private readonly byServer = new Map<string, ReadonlySet<string>>();

  listed(server: string, tools: readonly string[]): void {
    this.byServer.set(server, new Set(tools));
  }

  /** `tool`, or UNLISTED when its server never listed it here. */
  label(server: string, tool: string): string {
    return this.byServer.get(server)?.has(tool) ? tool : UNLISTED;
  }
}
