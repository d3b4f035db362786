/**
 * The video case: N tasks of zero upstream duration submitted at once, then the time until the poller has
 * finished and billed every one (read from the admin API), and what the upstream saw (read from the
 * simulator): polls per task, the busiest second and the most polls at once, against the configured cap.
 */
import { VIDEO_POLL } from './gateway-config';
import type { GatewayTarget } from './targets';

export interface DrainFigures {
  readonly tasks: number;
  readonly submitMs: number;
  /** From the first submit until every task is billed. */
  readonly drainMs: number;
  readonly pollsPerTask: number;
  readonly maxPollsPerSecond: number;
  readonly maxConcurrentPolls: number;
  readonly cap: typeof VIDEO_POLL;
}

interface SimFamilyStats {
  readonly polls: number;
  readonly max_concurrent_polls: number;
  readonly max_polls_per_second: number;
}

const BODY = JSON.stringify({
  model: 'videoa-1.1-t2v',
  input: { prompt: 'A benchmark in a bottle #sim task_ms=0' },
  parameters: { resolution: '720P', duration: 5 },
});

async function submitAll(gateway: GatewayTarget, n: number): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${gateway.url}/v1/videos/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
        body: BODY,
      }).then(async (res) => ({ status: res.status, text: await res.text() })),
    ),
  );
  const refused = answers.find((a) => a.status !== 200);
  if (refused) throw new Error(`a video submit answered ${refused.status}: ${refused.text.slice(0, 200)}`);
}

async function billed(gateway: GatewayTarget): Promise<number> {
  const res = await fetch(`${gateway.adminUrl}/admin/video/stats`, {
    headers: { authorization: `Bearer ${gateway.adminToken}` },
  });
  return ((await res.json()) as { billed: number }).billed;
}

export async function drainVideo(
  gateway: GatewayTarget,
  simUrl: string,
  n: number,
  timeoutMs: number,
): Promise<DrainFigures> {
  const start = performance.now();
  await submitAll(gateway, n);
  const submitMs = performance.now() - start;
  const deadline = Date.now() + timeoutMs;
  while ((await billed(gateway)) < n) {
    if (Date.now() > deadline)
      throw new Error(`video: not every task was billed within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const drainMs = performance.now() - start;
  const sim = (await (await fetch(`${simUrl}/_sim/tasks/stats?family=videoa`)).json()) as SimFamilyStats;
  return {
    tasks: n,
    submitMs,
    drainMs,
    pollsPerTask: sim.polls / n,
    maxPollsPerSecond: sim.max_polls_per_second,
    maxConcurrentPolls: sim.max_concurrent_polls,
    cap: VIDEO_POLL,
  };
}

export function drainReport(f: DrainFigures): string {
  return [
    `video: ${f.tasks} tasks of zero upstream duration, poll cap ${f.cap.per_second}/s and ${f.cap.concurrency} at once, first poll after ${f.cap.every}`,
    `  submitted in ${Math.round(f.submitMs)} ms; all finished and billed in ${Math.round(f.drainMs)} ms`,
    `  ${f.pollsPerTask.toFixed(2)} polls per task; upstream saw at most ${f.maxPollsPerSecond} polls in a second and ${f.maxConcurrentPolls} at once`,
  ].join('\n');
}
