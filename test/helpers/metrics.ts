/**
 * Reads `GET /metrics` as Prometheus would: the text exposition format (version 0.0.4), parsed into
 * samples with their labels, and the `# TYPE` of each family.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly contentType: string;
  readonly samples: readonly Sample[];
  /** Family name → counter, gauge, histogram, summary or untyped. */
  readonly types: ReadonlyMap<string, string>;
  /** The sum of the samples named `name` whose labels include every one of `labels`. */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /** The samples named `name` whose labels include every one of `labels`. */
  find(name: string, labels?: Readonly<Record<string, string>>): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
/** One `name="value"` pair; the value may hold `\\`, `\"` and `\n` escapes. */
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const m = LABEL.exec(text);
    if (!m || LABEL.lastIndex === at) throw new Error(`bad labels in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** As Prometheus reads a value (Go's ParseFloat): NaN and Inf in any case; prom-client writes `Nan`. */
function parseValue(text: string, line: string): number {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

/** Parses the exposition text; throws on a line that is neither a comment nor a sample. */
export function parseMetrics(text: string, contentType = ''): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    samples.push({
      name: m[1]!,
      labels: m[2] ? parseLabels(m[2], line) : {},
      value: parseValue(m[3]!, line),
    });
  }
  const find = (name: string, labels: Readonly<Record<string, string>> = {}): Sample[] =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    contentType,
    samples,
    types,
    find,
    value: (name, labels) => find(name, labels).reduce((sum, s) => sum + s.value, 0),
  };
}

/** Scrapes a gateway's admin port, without a token (as Prometheus does). */
export async function scrape(adminUrl: string): Promise<Scrape> {
  const res = await fetch(`${adminUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return parseMetrics(await res.text(), res.headers.get('content-type') ?? '');
}
