/**
 * State that outlives a configuration snapshot. A reload rebuilds the pipeline's stages from the new
 * file, but their counters (rate-limit windows, failed-auth counts) must carry on as if nothing happened:
 * a reload that gave every key a fresh window would be a way round its limit. A stage asks for its state
 * by a key naming everything the state depends on, and gets the same object while that key is unchanged.
 */
import { token } from '../base/token';

export class KeptState {
  private readonly parts = new Map<string, unknown>();

  /** The object kept under `key`, made by `make` the first time the key is asked for. */
  keep<T>(key: string, make: () => T): T {
    if (this.parts.has(key)) return this.parts.get(key) as T;
    const made = make();
    this.parts.set(key, made);
    return made;
  }
}

/** State that outlives configuration snapshots: limiter windows and the like. */
export const KeptStateToken = token<KeptState>('KeptState');
