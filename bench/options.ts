/** The benchmark's command-line flags. */
import { parseArgs } from 'node:util';
import { TIMED_CASE_NAMES, type CaseName } from './cases';

/** Other gateways that can be measured beside ours, each installed by the bench itself. */
export const PEERS = ['portkey'] as const;
export type Peer = (typeof PEERS)[number];

/** A run's settings; durations in seconds. */
export interface BenchOptions {
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly rounds: number;
  readonly cases: readonly CaseName[];
  /** Video tasks drained after the load cases; 0 skips the video case. */
  readonly videoTasks: number;
  /** The Redis of the `gateway-redis` target; undefined (`--redis off`) leaves that target out. */
  readonly redisUrl: string | undefined;
  /** Measures the bound (bound-proxy.ts) too, as a third target. */
  readonly bound: boolean;
  /** Another gateway measured beside ours in the same rounds; undefined leaves it out. */
  readonly peer: Peer | undefined;
}

export const USAGE =
  'usage: npm run bench -- [--duration 8] [--warmup 2] [--connections 64] [--rounds 3] [--cases json,json-10,stream,stream-paced,messages] [--video 1000] [--redis URL|off] [--bound] [--peer portkey]';

export function positiveInt(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

/** A flag that is a number from 0 to 1. */
export function ratio(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !(n >= 0 && n <= 1))
    throw new Error(`--${flag} must be off or a ratio from 0 to 1, got "${raw}"`);
  return n;
}

/** A flag that is `on` or `off`. */
export function onOff(flag: string, raw: string): boolean {
  if (raw !== 'on' && raw !== 'off') throw new Error(`--${flag} must be on or off, got "${raw}"`);
  return raw === 'on';
}

/** A comma-separated flag of names from `known`, each once; throws naming any unknown one. */
export function nameList<T extends string>(flag: string, raw: string, known: readonly T[]): T[] {
  const isKnown = (name: string): name is T => (known as readonly string[]).includes(name);
  const names = raw.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !isKnown(n));
  if (unknown.length > 0)
    throw new Error(`--${flag}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return [...new Set(names.filter(isKnown))];
}

/** A flag that is one name from `known`. */
export function oneOf<T extends string>(flag: string, raw: string, known: readonly T[]): T {
  const found = known.find((name) => name === raw);
  if (found === undefined) throw new Error(`--${flag}: unknown ${raw}; known: ${known.join(', ')}`);
  return found;
}

/** Parses the flags; throws with a readable message on anything unknown or invalid. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      duration: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '64' },
      rounds: { type: 'string', default: '3' },
      cases: { type: 'string', default: TIMED_CASE_NAMES.join(',') },
      video: { type: 'string', default: '1000' },
      redis: { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
      bound: { type: 'boolean', default: false },
      peer: { type: 'string' },
    },
  });
  return {
    durationS: positiveInt('duration', values.duration, 1),
    warmupS: positiveInt('warmup', values.warmup, 0),
    connections: positiveInt('connections', values.connections, 1),
    rounds: positiveInt('rounds', values.rounds, 1),
    cases: nameList('cases', values.cases, TIMED_CASE_NAMES),
    videoTasks: positiveInt('video', values.video, 0),
    redisUrl: values.redis === 'off' || values.redis === '' ? undefined : values.redis,
    bound: values.bound,
    peer: values.peer === undefined ? undefined : oneOf('peer', values.peer, PEERS),
  };
}
