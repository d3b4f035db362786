/**
 * Sessions their clients ended (DELETE) before they expired: a session id is sealed state, not a row to
 * delete, so an ended one is remembered until it would have expired anyway. Kept across reloads.
 */
export class EndedSessions {
  private readonly ended = new Map<string, number>();

  end(id: string, expires: number, now: number): void {
    for (const [old, until] of this.ended) if (until <= now) this.ended.delete(old);
    this.ended.set(id, expires);
  }

  has(id: string): boolean {
    return this.ended.has(id);
  }
}
