import { LRUCache } from 'lru-cache';
import type { CounterStore, WindowHit } from './counter-store';

interface Window {
  start: number;
  count: number;
}

/** Fixed windows per subject in an lru-cache, so memory stays bounded however many keys call. */
export class MemoryCounterStore implements CounterStore {
  private readonly windows: LRUCache<string, Window>;

  constructor(maxSubjects = 100_000) {
    this.windows = new LRUCache<string, Window>({ max: maxSubjects });
  }

  hit(subject: string, windowMs: number): WindowHit {
    const now = Date.now();
    const start = now - (now % windowMs);
    let window = this.windows.get(subject);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(subject, window);
    }
    window.count++;
    return { count: window.count, resetInMs: start + windowMs - now };
  }
}
