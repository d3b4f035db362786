/**
 * Reloads when gateway.yaml changes. The directory is watched, not the file: editors replace a file by
 * renaming a new one over it, and a Kubernetes ConfigMap swaps a `..data` symlink beside a file that is
 * itself an unchanging symlink. Every change there (Node's inotify watch reports each rename) restarts
 * a quiet period of `settle`; the file is read once it has passed, so a file still being written is not,
 * and a burst of events makes one read. A read of an unchanged file costs a hash and changes nothing.
 *
 * (chokidar was tried first: it reports nothing for the ConfigMap swap, a symlink created and renamed
 * over `..data`, a path that exists before and after.)
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';

export class ConfigWatcher {
  private watcher: FSWatcher | undefined;
  private quiet: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly settleMs: number,
    private readonly changed: () => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.watcher = watch(dirname(this.file), () => this.touched());
    this.watcher.on('error', (e: Error) =>
      this.logger.warn(
        { err: e, file: basename(this.file) },
        'watching the configuration file stopped; SIGHUP and POST /admin/reload still reload it',
      ),
    );
  }

  stop(): void {
    clearTimeout(this.quiet);
    this.watcher?.close();
  }

  private touched(): void {
    clearTimeout(this.quiet);
    this.quiet = setTimeout(this.changed, this.settleMs);
  }
}
