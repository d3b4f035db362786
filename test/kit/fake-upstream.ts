/**
 * The kit's fake upstream is the simulator: its `reply` fault (POST /_sim/faults) answers with a golden
 * fixture, byte for byte, event streams in small uneven pieces. This file names the fixtures (an Answer:
 * a file under test/ and the HTTP status it is sent with) and drives the simulator's fault controls
 * over HTTP, as a test of a simulator in another process would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The source tree's test/, found from dist/test/kit where the compiled tests run. */
const TEST_DIR = join(__dirname, '..', '..', '..', 'test');

/** One vendor answer: a file under test/, sent with `status` and any `headers` the vendor adds. */
export interface Answer {
  readonly file: string;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

type Headers = Readonly<Record<string, string>>;

/** An answer recorded from the vendor (test/fixtures, provenance in test/fixtures/SOURCES.md). */
export const recorded = (file: string, status = 200, headers?: Headers): Answer => ({
  file: `fixtures/${file}`,
  status,
  ...(headers ? { headers } : {}),
});

/** An answer derived or written after the vendor's documented shape (test/kit/fixtures/SOURCES.md). */
export const golden = (file: string, status = 200, headers?: Headers): Answer => ({
  file: `kit/fixtures/${file}`,
  status,
  ...(headers ? { headers } : {}),
});

/** The answer's exact bytes. */
export const bytesOf = (answer: Answer): Buffer => readFileSync(join(TEST_DIR, answer.file));

export const isStream = (answer: Answer): boolean => answer.file.endsWith('.sse');

/** Which requests a served answer is for (the simulator's fault match). */
export interface Match {
  readonly path_prefix?: string;
  readonly model?: string;
}

/** The simulator's fault controls, over HTTP. */
export class FakeUpstream {
  constructor(readonly url: string) {}

  /** Serves `answer` to the requests `match` selects, `times` times (absent: until cleared); its id. */
  async serve(answer: Answer, match: Match, times?: number): Promise<number> {
    const reply = {
      status: answer.status,
      content_type: isStream(answer) ? 'text/event-stream' : 'application/json',
      body_base64: bytesOf(answer).toString('base64'),
      headers: answer.headers ?? {},
    };
    const res = await this.call('POST', { match, fault: { reply }, ...(times ? { times } : {}) });
    return (res as { id: number }).id;
  }

  /** How many requests fault `id` has answered; undefined once it is spent or cleared. */
  async hits(id: number): Promise<number | undefined> {
    const { faults } = (await this.call('GET')) as { faults: { id: number; hits: number }[] };
    return faults.find((f) => f.id === id)?.hits;
  }

  async clear(): Promise<void> {
    await this.call('DELETE');
  }

  private async call(method: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.url}/_sim/faults`, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw new Error(`simulator ${method} /_sim/faults: ${JSON.stringify(json)}`);
    return json;
  }
}
