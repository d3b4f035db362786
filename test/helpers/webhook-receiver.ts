/**
 * A real webhook receiver for spend alert tests (node:http on a loopback port of its own, port 0): it
 * verifies each delivery's signature the way docs/keys-and-console.md tells receivers to, keeps what it
 * got, tells a waiting test as each delivery arrives, and answers as the test scripts it (a status,
 * headers, a delay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Teardown } from './gateway';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Record<string, unknown>;
  /** The signature matched the raw body and its time was within five minutes of now. */
  readonly verified: boolean;
  /** Epoch ms of arrival. */
  readonly at: number;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: Received[];
  /** Resolves with the first `n` deliveries as the n-th arrives; fails after `ms` saying how many came. */
  waitFor(n: number, ms?: number): Promise<Received[]>;
}

/** Five minutes either way: how old (or how far ahead) a signature's time may be. */
const TOLERANCE_S = 300;

/** Verifies `t=<seconds>,v1=<hex>` over "<t>.<raw body>", as a receiver would. */
export function verifySignature(
  secret: string,
  header: string | undefined,
  raw: string,
  now = Date.now(),
): boolean {
  const fields = new Map((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(fields.get('t'));
  const v1 = fields.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `answer(n)` says how to answer the n-th delivery (0-based); by default 200 at once. */
export async function webhookReceiver(
  t: Teardown,
  secret: string,
  answer: (n: number) => Answer = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
  const received: Received[] = [];
  /** Called after each delivery is kept. */
  const arrivals = new Set<() => void>();
  /** Answers still being delayed: dropped at teardown, so a long delay does not hold the process open. */
  const delayed = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const n = received.length;
      const verified = verifySignature(secret, req.headers['x-gateway-signature'] as string | undefined, raw);
      received.push({
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as Record<string, unknown>,
        verified,
        at: Date.now(),
      });
      for (const arrived of arrivals) arrived();
      const { status, headers = {}, delayMs = 0 } = answer(n);
      const timer = setTimeout(() => {
        delayed.delete(timer);
        res.writeHead(status, headers).end();
      }, delayMs);
      delayed.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const timer of delayed) clearTimeout(timer);
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/budget`,
    received,
    waitFor: (n, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (received.length < n) return;
          clearTimeout(timer);
          arrivals.delete(check);
          resolve(received.slice(0, n));
        };
        const timer = setTimeout(() => {
          arrivals.delete(check);
          reject(new Error(`${received.length} of ${n} deliveries arrived in ${ms} ms`));
        }, ms);
        arrivals.add(check);
        check();
      }),
  };
}
