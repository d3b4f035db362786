/**
 * Hot reload: reads gateway.yaml again, validates all of it, builds a whole new snapshot beside the
 * running one and swaps it in. Anything wrong (unreadable file, YAML syntax, a field out of range, an
 * unknown plugin or upstream, a file cut off mid-write) leaves the running snapshot serving and is kept
 * as `last_error` for `GET /admin/config`. Reloads run one at a time, in the order asked.
 */
import type { Logger } from 'pino';
import type { Env } from '../../config/env';
import { ConfigError } from '../../config/errors';
import { parseConfigText, readConfigText, type ConfigText } from '../../config/load';
import type { GatewayConfig } from '../../config/schema';
import { effectiveConfig } from './effective-config';
import type { LiveRouting } from './live-routing';
import type { ConfigSource, Snapshot } from './snapshot';

/** What asked for a reload. */
export type ReloadTrigger = 'start' | 'file' | 'signal' | 'admin' | 'announce';

export interface ReloadError {
  readonly message: string;
  readonly at: string;
  /** The hash of the file refused, when it could be read. */
  readonly hash: string | null;
  readonly trigger: ReloadTrigger;
}

/** This instance's configuration as `GET /admin/config` shows it. */
export interface ConfigStatus {
  readonly file: string;
  readonly version: string;
  readonly hash: string;
  readonly loaded_at: string;
  readonly trigger: ReloadTrigger;
  /** Reloads applied since start-up. */
  readonly reloads: number;
  readonly last_error: ReloadError | null;
  /** Settings the file changed that apply only after a restart (core/reload/effective-config.ts). */
  readonly restart_required: readonly string[];
}

export interface ReloadResult {
  /** True when a new snapshot serves; false when the file was unchanged or refused. */
  readonly applied: boolean;
  /** The reason it was refused, if it was. */
  readonly error?: ReloadError;
  readonly status: ConfigStatus;
}

export type SnapshotBuilder = (config: GatewayConfig, source: ConfigSource) => Promise<Snapshot>;

/** `version` is the first 12 hex digits of the file's sha256. */
export const sourceOf = (hash: string, at = new Date()): ConfigSource => ({
  hash,
  version: hash.slice(0, 12),
  loadedAt: at.toISOString(),
});

/** The status of a configuration as loaded at start-up, from `file` ('' when given as an object). */
export const sourceStatus = (source: ConfigSource, file: string): ConfigStatus => ({
  file,
  version: source.version,
  hash: source.hash,
  loaded_at: source.loadedAt,
  trigger: 'start',
  reloads: 0,
  last_error: null,
  restart_required: [],
});

export class ConfigReloader {
  private queue: Promise<unknown> = Promise.resolve();
  private trigger: ReloadTrigger = 'start';
  private reloads = 0;
  private lastError: ReloadError | null = null;
  private restartRequired: readonly string[] = [];

  constructor(
    private readonly file: string,
    private readonly env: Env,
    private readonly routing: LiveRouting,
    private readonly build: SnapshotBuilder,
    /** Told of each snapshot swapped in, after the swap. */
    private readonly applied: (snapshot: Snapshot) => void,
    private readonly logger: Logger,
  ) {}

  /** Reloads once every reload asked before it is done. */
  reload(trigger: ReloadTrigger): Promise<ReloadResult> {
    const attempt = this.queue.then(() => this.attempt(trigger));
    this.queue = attempt.catch(() => undefined);
    return attempt;
  }

  status(): ConfigStatus {
    return {
      ...sourceStatus(this.routing.current.source, this.file),
      trigger: this.trigger,
      reloads: this.reloads,
      last_error: this.lastError,
      restart_required: this.restartRequired,
    };
  }

  private async attempt(trigger: ReloadTrigger): Promise<ReloadResult> {
    let text: ConfigText | undefined;
    try {
      text = readConfigText(this.file);
      if (text.hash === this.routing.current.source.hash) {
        this.lastError = null; // the file is the running one again: whatever was refused is gone
        return { applied: false, status: this.status() };
      }
      await this.apply(text, trigger);
      return { applied: true, status: this.status() };
    } catch (e) {
      const error = this.refused(e, text, trigger);
      return { applied: false, error, status: this.status() };
    }
  }

  private async apply(text: ConfigText, trigger: ReloadTrigger): Promise<void> {
    if (text.text.length > 0 && !text.text.endsWith('\n')) {
      // YAML cut anywhere but at a line's end usually still parses, into a smaller configuration.
      throw new ConfigError(
        '',
        'the file does not end with a line break, as a file cut off mid-write would not: it is not loaded (write it whole, or replace it by renaming)',
        this.file,
      );
    }
    const running = this.routing.current;
    const { config, restartRequired } = effectiveConfig(
      running.config,
      parseConfigText(text, this.file, this.env),
    );
    const snapshot = await this.build(config, sourceOf(text.hash));
    this.routing.swap(snapshot);
    this.trigger = trigger;
    this.reloads++;
    this.lastError = null;
    this.restartRequired = restartRequired;
    this.applied(snapshot);
    this.logger.info(
      {
        version: snapshot.source.version,
        previous: running.source.version,
        trigger,
        restart_required: restartRequired,
      },
      restartRequired.length
        ? 'configuration reloaded; some changed settings apply only after a restart'
        : 'configuration reloaded',
    );
  }

  private refused(e: unknown, text: ConfigText | undefined, trigger: ReloadTrigger): ReloadError {
    const message =
      e instanceof ConfigError
        ? e.inFile(this.file).message // plugin sections are checked while building
        : `reload failed: ${(e as Error).message}`;
    this.lastError = { message, at: new Date().toISOString(), hash: text?.hash ?? null, trigger };
    this.logger.error(
      { trigger, version: this.routing.current.source.version },
      `configuration not reloaded, the running one still serves: ${message}`,
    );
    return this.lastError;
  }
}
