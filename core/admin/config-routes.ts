/**
 * The configuration side of the admin API:
 *   GET  /admin/config   this instance's version (the file's hash), when and why it was loaded, the last
 *                        reload refused and why, settings waiting for a restart, and with Redis every live
 *                        instance's version (`instances`)
 *   POST /admin/reload   reload gateway.yaml now → 200 with the status (`applied: false` when the file is
 *                        unchanged), or 422 config_invalid naming what is wrong (the old one still serves)
 */
import { Errors } from '../base/errors';
import type { InstanceConfig } from '../reload/config-announcer';
import type { ConfigStatus, ReloadResult } from '../reload/config-reloader';

/** What the admin API needs from the gateway's reload machinery. */
export interface ConfigControl {
  readonly instance: string;
  readonly watching: boolean;
  status(): ConfigStatus | undefined;
  /** Undefined when started without a file. */
  reload(): Promise<ReloadResult> | undefined;
  /** Every live instance's status (with Redis), else undefined. */
  instances(): Promise<InstanceConfig[] | undefined>;
}

export async function configView(control: ConfigControl): Promise<unknown> {
  const status = control.status();
  const self = { instance: control.instance, watching: control.watching, ...status };
  const others = await control.instances();
  return { ...self, instances: others ?? [self] };
}

export async function reloadNow(control: ConfigControl): Promise<unknown> {
  const attempt = control.reload();
  if (!attempt) throw Errors.reloadUnavailable();
  const result = await attempt;
  if (result.error) throw Errors.configInvalid(result.error.message);
  return { applied: result.applied, ...result.status };
}
