/**
 * Where each process of the bench runs. On a shared machine the load generator and the proxy under test
 * compete for the same CPUs, and requests/s then measures the scheduler as much as the proxy: with
 * `taskset` and two CPUs or more, the load generator (this process) and the simulator share CPU 0 and
 * each proxy runs alone on CPU 1, measured one at a time.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  /** Pins the load generator's side (this process, the simulator). */
  loadSide(pid: number | undefined): void;
  /** Pins a proxy under test. */
  proxy(pid: number | undefined): void;
  /** What the report says about it. */
  readonly description: string;
}

const LOAD_CPU = 0;
const PROXY_CPU = 1;

/** `taskset -acp`: every thread of the process, the ones it already has included. */
function pin(pid: number | undefined, cpu: number): void {
  if (pid !== undefined) execFileSync('taskset', ['-acp', String(cpu), String(pid)], { stdio: 'ignore' });
}

function tasksetWorks(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function cpuPinning(): Pinning {
  if (availableParallelism() < 2)
    return unpinned('not pinned: one CPU, the load generator and the proxies share it');
  if (!tasksetWorks())
    return unpinned('not pinned: taskset is not available, every process shares every CPU');
  return {
    loadSide: (pid) => pin(pid, LOAD_CPU),
    proxy: (pid) => pin(pid, PROXY_CPU),
    description: `pinned with taskset: load generator and simulator on CPU ${LOAD_CPU}, the proxy under test on CPU ${PROXY_CPU}`,
  };
}

const unpinned = (description: string): Pinning => ({
  loadSide: () => undefined,
  proxy: () => undefined,
  description,
});
