/** A gateway with the guardrails stage in its pipeline, a policy webhook, and what the tests read back. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ConfigDoc, Teardown, TestGateway } from '../../../helpers/gateway';
import { eventually } from '../../../helpers/wait';
import type { UsageRecord } from '../../../../core/stores/usage-store';

/** The rules of the product's example, and one that masks only modelc's answers. */
export const EXAMPLE_RULES = [
  {
    name: 'no-injection',
    on: 'request',
    pattern: 'ignore (all )?previous instructions',
    flags: 'i',
    action: 'block',
  },
  {
    name: 'pii',
    on: 'both',
    pii: ['email', 'phone', 'credit_card', 'iban', 'ip_address', 'secret'],
    action: 'mask',
    models: ['modela-*'],
  },
  {
    name: 'no-codenames',
    on: 'response',
    pattern: 'Project Zephyr',
    action: 'block',
    models: ['modela-*', 'modelc-*'],
  },
  { name: 'answer-pii', on: 'response', pii: ['phone', 'credit_card'], action: 'mask', models: ['modelc-*'] },
];

/** The shipped pipeline with `guardrails` after usage-metering, where the docs put it. */
export function withGuardrails(options: Record<string, unknown> = { rules: EXAMPLE_RULES }) {
  return (doc: ConfigDoc): void => {
    const pipeline = doc.pipeline as unknown[];
    pipeline.splice(pipeline.indexOf('usage-metering') + 1, 0, { guardrails: options });
  };
}

export const openaiFor = (gw: { url: string }, key: string): OpenAI =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

/** What reached the simulator with request id `id`. */
export const upstreamBodies = (gw: TestGateway, id: string): unknown[] =>
  gw.sim.log
    .list()
    .filter((r) => r.request_id === id)
    .map((r) => r.body);

/** The usage record of request `id`, once written. */
export async function recordOf(gw: TestGateway, id: string): Promise<UsageRecord> {
  await eventually(async () => (await gw.gateway.usage.list({ id })).length > 0);
  return (await gw.gateway.usage.list({ id }))[0]!;
}

export const withId = (id: string) => ({ headers: { 'x-request-id': id } });

/** A prompt the simulator answers with what it received (its `echo`): a reply quoting the prompt. */
export const echoed = (text: string): string => `${text} #sim echo`;

export interface PolicyServer {
  readonly url: string;
  readonly received: Record<string, unknown>[];
}

/** A policy webhook on a loopback port: it answers each check with `verdict(body)`. */
export async function policyServer(
  t: Teardown,
  verdict: (body: Record<string, unknown>) => unknown,
): Promise<PolicyServer> {
  const received: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(verdict(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`, received };
}

/** A loopback URL nothing listens on: a port the system gave and took back. */
export async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/check`;
}
