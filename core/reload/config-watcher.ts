/**
 * Reloads when gateway.yaml changes. The directory is watched, not the file: editors replace a file by
 * renaming a new one over it, and a Kubernetes ConfigMap swaps a `..data` symlink beside a file that is
 * itself an unchanging symlink. Any change there asks for a reload, which costs a read and a hash when
 * the file itself did not change. chokidar waits until a file written in place has stopped growing.
 */
import { basename, dirname } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';

export class ConfigWatcher {
  private watcher: FSWatcher | undefined;

  constructor(
    private readonly file: string,
    private readonly settleMs: number,
    private readonly changed: () => void,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the watch is in place, so a change made after it is seen. */
  start(): Promise<void> {
    const watcher = watch(dirname(this.file), {
      depth: 0,
      ignoreInitial: true,
      awaitWriteFinish: { stabilityThreshold: this.settleMs, pollInterval: Math.min(100, this.settleMs) },
    });
    this.watcher = watcher;
    watcher.on('all', () => this.changed());
    watcher.on('error', (e: unknown) =>
      this.logger.warn({ err: e, file: basename(this.file) }, 'watching the configuration file failed'),
    );
    return new Promise((resolve) => watcher.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    await this.watcher?.close();
  }
}
