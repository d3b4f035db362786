/**
 * Waiting in tests: for the thing expected, never for a time. A condition is polled until it holds or
 * a deadline passes; the deadline is generous (a loaded machine stalls event loops for seconds) because
 * it only costs time when the test fails, and the failure names what was awaited and what was last seen.
 */

export interface WaitOptions {
  /** Give up after this long (10 s). */
  readonly timeoutMs?: number;
  /** What is awaited, for the failure's message. */
  readonly what?: string;
}

const POLL_MS = 20;

/**
 * Resolves with `probe`'s first answer that `holds`. At the deadline, rejects naming `what` and the last
 * answer (or the last error `probe` threw).
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  holds: (value: T) => boolean,
  { timeoutMs = 10_000, what = 'condition' }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing yet';
  for (;;) {
    try {
      const value = await probe();
      if (holds(value)) return value;
      last = describe(value);
    } catch (e) {
      last = `an error: ${(e as Error).message}`;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not met in ${timeoutMs} ms; last saw ${last}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Resolves once `predicate` holds; rejects after `timeoutMs` naming `what`. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  await until(predicate, (held) => held, { timeoutMs, what });
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 500 ? `${value.slice(0, 500)}…` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}
