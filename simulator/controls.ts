import type { IncomingHttpHeaders } from 'node:http';
import { SimErrors } from './sim-error';

/** Per-request behaviour chosen by `x-sim-*` headers or a `#sim` directive in the prompt. */
/** Long enough for any task a test or demo wants; the vendors keep task ids queryable for 24 h. */
export const MAX_TASK_MS = 86_400_000;

export interface Controls {
  /** Delay before the response headers. */
  latencyMs?: number;
  /** Tokens per second while streaming; 0 or absent writes as fast as possible. */
  tps?: number;
  /** Completion tokens per choice. */
  tokens?: number;
  /** Answer with this error status (400–599) and the family's error body. */
  status?: number;
  /** Streaming: cut the connection after this many content chunks. */
  cutAfter?: number;
  /** Streaming: send an in-stream error event after this many content chunks. */
  errorAfter?: number;
  /** Streaming: pause this long after the first content chunk. */
  silenceMs?: number;
  /** Reply with the JSON of the request's headers and body. */
  echo?: boolean;
  /**
   * Images: false (`usage=0`) leaves `usage` out of the response. Whether the vendor sends it there
   * is uncertain, so clients must cope with both; absent means it is sent. Chat routes ignore it.
   */
  usage?: boolean;
  /** Video tasks: milliseconds from submit to the terminal status (default 2000). */
  taskMs?: number;
  /** Video tasks: milliseconds from submit that the task stays queued (default `task_ms` / 4). */
  queueMs?: number;
  /** Video tasks: the task ends failed, with the vendor's failure details. */
  fail?: boolean;
  /** Video tasks: the task ends cancelled (wins over `fail`). */
  cancel?: boolean;
  /** Video tasks: the first N polls of the task answer a transient 500 in the vendor's error body. */
  pollErrors?: number;
  /** videoa: the N polls after any `poll_errors` answer `task_status: UNKNOWN`; videob ignores it. */
  unknownPolls?: number;
  /** Video tasks: delay before each poll's answer, so that a poller's polls overlap measurably. */
  pollLatencyMs?: number;
  /** The prompt cache's window for this request: its start is read from the cache if used within it (0: never). */
  promptCacheMs?: number;
}

/** How one control is spelled as a header and as a directive, and how its value is read. */
interface ControlSpec<K extends keyof Controls> {
  readonly key: K;
  readonly header: string;
  readonly directive: string;
  /** The value, or undefined when `raw` is not valid for this control. */
  parse(raw: string): Controls[K] | undefined;
}
type AnyControlSpec = { [K in keyof Controls]-?: ControlSpec<K> }[keyof Controls];

// Caps keep a typo from asking for an hour of latency or a gigabyte of tokens.
const MAX_COUNT = 1_000_000;
const MAX_MS = 600_000;

const integer =
  (min: number, max: number) =>
  (raw: string): number | undefined => {
    const n = Number(raw);
    return raw !== '' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
  };
const rate = (raw: string): number | undefined => {
  const n = Number(raw);
  return raw !== '' && Number.isFinite(n) && n >= 0 ? n : undefined;
};
const FLAG_WORDS: Readonly<Record<string, boolean>> = {
  '': true,
  '1': true,
  true: true,
  yes: true,
  '0': false,
  false: false,
  no: false,
};
const flag = (raw: string): boolean | undefined => FLAG_WORDS[raw.toLowerCase()];

const control = <K extends keyof Controls>(
  key: K,
  header: string,
  directive: string,
  parse: (raw: string) => Controls[K] | undefined,
): ControlSpec<K> => ({ key, header, directive, parse });

/** Every control the simulator understands. */
export const CONTROLS: readonly AnyControlSpec[] = [
  control('latencyMs', 'x-sim-latency-ms', 'latency_ms', integer(0, MAX_MS)),
  control('tps', 'x-sim-tps', 'tps', rate),
  control('tokens', 'x-sim-tokens', 'tokens', integer(0, MAX_COUNT)),
  control('status', 'x-sim-status', 'status', integer(400, 599)),
  control('cutAfter', 'x-sim-cut-after', 'cut_after', integer(0, MAX_COUNT)),
  control('errorAfter', 'x-sim-error-after', 'error_after', integer(0, MAX_COUNT)),
  control('silenceMs', 'x-sim-silence-ms', 'silence_ms', integer(0, MAX_MS)),
  control('echo', 'x-sim-echo', 'echo', flag),
  control('usage', 'x-sim-usage', 'usage', flag),
  // Read at submit; they apply to the task's whole life (`latency_ms` and `status` to the submit).
  control('taskMs', 'x-sim-task-ms', 'task_ms', integer(0, MAX_TASK_MS)),
  control('queueMs', 'x-sim-queue-ms', 'queue_ms', integer(0, MAX_TASK_MS)),
  control('fail', 'x-sim-fail', 'fail', flag),
  control('cancel', 'x-sim-cancel', 'cancel', flag),
  control('pollErrors', 'x-sim-poll-errors', 'poll_errors', integer(0, MAX_COUNT)),
  control('unknownPolls', 'x-sim-unknown-polls', 'unknown_polls', integer(0, MAX_COUNT)),
  control('pollLatencyMs', 'x-sim-poll-latency-ms', 'poll_latency_ms', integer(0, MAX_MS)),
  control('promptCacheMs', 'x-sim-prompt-cache-ms', 'prompt_cache_ms', integer(0, MAX_TASK_MS)),
];

const BY_DIRECTIVE = new Map<string, AnyControlSpec>(CONTROLS.map((c) => [c.directive, c]));
const MARKER = '#sim';
const WHITESPACE = /\s+/;

function apply<K extends keyof Controls>(
  into: Controls,
  spec: ControlSpec<K>,
  raw: string,
  name: string,
): void {
  const value = spec.parse(raw.trim());
  if (value === undefined) throw SimErrors.invalidControl(name, raw);
  into[spec.key] = value;
}

/**
 * Reads the `#sim` directive: the words after the marker up to the end of its line, each a known
 * `key=value` or a bare flag (`echo`). Anything else is an error, so typos are not silently ignored.
 */
function applyDirective(into: Controls, text: string): void {
  const at = text.indexOf(MARKER);
  const after = text.charAt(at + MARKER.length);
  if (after !== '' && !WHITESPACE.test(after)) return; // `#simulate` is prose, not a directive
  const lineEnd = text.indexOf('\n', at);
  const line = text.slice(at + MARKER.length, lineEnd < 0 ? undefined : lineEnd);
  for (const word of line.split(WHITESPACE)) {
    if (word === '') continue;
    const eq = word.indexOf('=');
    const name = eq < 0 ? word : word.slice(0, eq);
    const spec = BY_DIRECTIVE.get(name);
    if (!spec) throw SimErrors.invalidControl(name, eq < 0 ? '' : word.slice(eq + 1));
    apply(into, spec, eq < 0 ? '' : word.slice(eq + 1), name);
  }
}

/**
 * The controls of one request. The prompt is scanned only when it contains `#sim`, which keeps
 * the default path cheap; a header overrides the same control given in the prompt.
 * @throws SimError 400 when a control value is invalid.
 */
export function readControls(headers: IncomingHttpHeaders, prompt: string): Controls {
  const controls: Controls = {};
  if (prompt.includes(MARKER)) applyDirective(controls, prompt);
  for (const spec of CONTROLS) {
    const raw = headers[spec.header];
    if (typeof raw === 'string') apply(controls, spec, raw, spec.header);
  }
  return controls;
}
