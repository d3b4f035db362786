/**
 * Reloads when gateway.yaml changes. The directory is watched, not the file: editors replace a file by
 * renaming a new one over it, and a Kubernetes ConfigMap swaps a `..data` symlink beside a file that is
 * itself an unchanging symlink. A change to one of the entries the file's path resolves through (its
 * own name, and the links it follows within the directory) restarts a quiet period of `settle`; the
 * file is read once it has passed, so a file still being written is not, and a burst of events makes
 * one read. A read of an unchanged file costs a hash and changes nothing.
 *
 * Other files in the directory are ignored: a log written beside the file more often than `settle`
 * would otherwise restart the quiet period for ever, and no edit would ever apply.
 *
 * (chokidar was tried first: it reports nothing for the ConfigMap swap, a symlink created and renamed
 * over `..data`, a path that exists before and after.)
 */
import { readlinkSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';

/** At most this many links are followed, as a guard against a loop. */
const MAX_LINKS = 8;

/**
 * The directory entries `file`'s path resolves through: its name, then for each symlink a relative
 * target leads to, the target's first component (`gateway.yaml -> ..data/gateway.yaml` adds `..data`,
 * `..data -> ..2026_12_01` adds that).
 */
function entriesFollowed(file: string): Set<string> {
  const names = new Set<string>();
  let name: string | undefined = basename(file);
  while (name !== undefined && !names.has(name) && names.size < MAX_LINKS) {
    names.add(name);
    name = firstComponentOfLink(dirname(file), name);
  }
  return names;
}

function firstComponentOfLink(dir: string, name: string): string | undefined {
  let target: string;
  try {
    target = readlinkSync(join(dir, name));
  } catch {
    return undefined; // not a link, or not there (yet)
  }
  if (isAbsolute(target)) return undefined; // leads out of the watched directory
  const first = target.replace(/^(\.\/)+/, '').split('/')[0];
  return first === undefined || first === '' || first === '..' ? undefined : first;
}

export class ConfigWatcher {
  private watcher: FSWatcher | undefined;
  private quiet: NodeJS.Timeout | undefined;
  private followed: Set<string>;

  constructor(
    private readonly file: string,
    private readonly settleMs: number,
    private readonly changed: () => void,
    private readonly logger: Logger,
  ) {
    this.followed = entriesFollowed(file);
  }

  start(): void {
    this.watcher = watch(dirname(this.file), (_event, name) => this.touched(name));
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

  /** `name` is null where the platform does not say which entry changed: then any change counts. */
  private touched(name: string | null): void {
    if (name !== null && !this.followed.has(name)) return;
    this.followed = entriesFollowed(this.file); // a rename may have made the file a link, or undone one
    clearTimeout(this.quiet);
    this.quiet = setTimeout(this.changed, this.settleMs);
  }
}
