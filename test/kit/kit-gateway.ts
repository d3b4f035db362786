/**
 * The gateway a family's kit run drives: the real gateway (full pipeline, real HTTP) with one upstream,
 * the family under test, pointed at the fake upstream. Its models are whatever the gateway's catalogue
 * lists, so the kit never names a model itself; a route gives every one of them to the upstream under
 * another id, so that what the upstream receives shows whether the family sends the route's id.
 */
import type { Test } from 'tap';
import { definedPluginsOf } from '../../core/plugins/define-plugin';
import type { UsageRecord } from '../../core/stores/usage-store';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { getJson, postJson } from '../helpers/http';
import { eventually } from '../helpers/wait';
import { FakeUpstream } from './fake-upstream';

/** The family under test, as a gateway.yaml upstream entry names it. */
export interface FamilyUnderTest {
  /** The plugin's name in gateway.yaml (`plugin:`). */
  readonly plugin: string;
  /** The entry's other options, besides `plugin`, `base_url` and `api_key` (video `poll:`, say). */
  readonly options?: Readonly<Record<string, unknown>>;
  /**
   * The vendor's documented error body for `status`, as a `t.match` pattern: every error answer the
   * family lists must have it, so a hand-written one cannot drift from what the vendor sends.
   */
  readonly errorShape: (status: number) => object;
}

export interface KitGateway {
  readonly family: FamilyUnderTest;
  readonly gw: TestGateway;
  readonly upstream: FakeUpstream;
  /** The upstream's name in the configuration, as usage records carry it. */
  readonly upstreamName: string;
  /** The path every upstream request of the family starts with: what the kit's answers match. */
  readonly pathPrefix: string;
  /** The path of the entry's `base_url`, which every path the family asks on follows. */
  readonly basePath: string;
  /** The entry as the plugin's schema parses it: what the upstream must receive is derived from it. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The models the gateway lists (GET /v1/models): the family's, as its plugin declares them. */
  readonly models: readonly string[];
}

/** The id the kit's route gives the upstream for every model: the family must send it, not the client's. */
export const KIT_UPSTREAM_MODEL = 'kit-upstream-model';

/** Starts the gateway with only `family` configured, its base URL on the simulator under `/kit-<plugin>`. */
export async function startKitGateway(t: Test, family: FamilyUnderTest): Promise<KitGateway> {
  const upstreamName = `kit-${family.plugin}`;
  const basePath = `/kit-${family.plugin}`;
  let entry: Record<string, unknown> = {};
  const gw = await startTestGateway(t, (doc, sim) => {
    entry = {
      ...family.options,
      plugin: family.plugin,
      // No simulator family lives here: every request is answered by a served fixture, or 404.
      base_url: `${sim.url}${basePath}`,
      api_key: 'kit-key',
    };
    doc.upstreams = { [upstreamName]: entry };
    doc.routes = { '*': { targets: [{ upstream: upstreamName, model: KIT_UPSTREAM_MODEL }] } };
    // Each answer is judged on its own: error answers in a row must not eject the only upstream.
    doc.resilience = { ejection: { consecutive_failures: 0 } };
  });
  const listed = await getJson<{ data: { id: string }[] }>(`${gw.url}/v1/models`, gw.key);
  const models = listed.body.data.map((m) => m.id);
  if (models.length === 0) throw new Error(`the gateway lists no model of plugin ${family.plugin}`);
  return {
    family,
    gw,
    upstream: new FakeUpstream(gw.sim.url),
    upstreamName,
    pathPrefix: `${basePath}/`,
    basePath,
    options: parsedOptions(family.plugin, entry),
    models,
  };
}

/** The upstream entry as the plugin reads it, its defaults filled in. */
function parsedOptions(plugin: string, entry: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const registration = definedPluginsOf('upstream').get(plugin);
  if (!registration) throw new Error(`no upstream plugin ${plugin} is defined`);
  return registration.options.parse(entry);
}

/**
 * The family's models that `path` serves. A family may serve models on several APIs (chat and
 * embeddings): each is asked for with a body holding only `model`, and the endpoints that do not serve it
 * answer 404 `model_not_found` before anything is validated or sent upstream.
 */
export async function modelsServedOn(k: KitGateway, path: string): Promise<readonly string[]> {
  const served: string[] = [];
  for (const model of k.models) {
    const res = await postJson<{ error?: { code?: string } }>(`${k.gw.url}${path}`, { model }, k.gw.key);
    if (res.body?.error?.code !== 'model_not_found') served.push(model);
  }
  if (served.length === 0) throw new Error(`no model of plugin ${k.family.plugin} is served on ${path}`);
  return served;
}

/**
 * The usage records of `id` once at least one is written (none after `ms` resolves to none). Every
 * caller expects a record, so the wait costs nothing unless one is missing: `ms` leaves a loaded machine
 * room for a poller's billing.
 */
export async function recordsOf(gw: TestGateway, id: string, ms = 10_000): Promise<UsageRecord[]> {
  await eventually(async () => (await gw.gateway.usage.list({ id })).length > 0, ms).catch(() => undefined);
  return gw.gateway.usage.list({ id });
}

let counter = 0;
/** A fresh request id, readable in failure output. */
export const requestId = (label: string): string =>
  `kit.${label.replace(/[^A-Za-z0-9._:-]/g, '_')}.${++counter}`;
