/**
 * The simulator's upstreams the benchmark uses, shared by the bare proxy (which forwards to them) and the
 * gateway's configuration (which names them), so both targets reach the very same upstream endpoints.
 */

/** One simulated vendor: where its API is mounted on the simulator and the credential it expects. */
export interface SimUpstream {
  /** The gateway's upstream id in the generated gateway.yaml. */
  readonly id: string;
  /** The gateway plugin serving it. */
  readonly plugin: string;
  /** The upstream's base URL path on the simulator (the gateway's `base_url`). */
  readonly basePath: string;
  /** The one API path below the base that the benchmark calls. */
  readonly apiPath: string;
  readonly apiKey: string;
  /** The header that carries the credential, in the vendor's style. */
  readonly credential: (apiKey: string) => Readonly<Record<string, string>>;
}

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

export const MODELA: SimUpstream = {
  id: 'modela-main',
  plugin: 'modela',
  basePath: '/modela/v1',
  apiPath: '/chat/completions',
  apiKey: 'sim-modela-key',
  credential: bearer,
};

export const MODELC: SimUpstream = {
  id: 'modelc-main',
  plugin: 'modelc',
  basePath: '/modelc/compatible-mode/v1',
  apiPath: '/chat/completions',
  apiKey: 'sim-modelc-key',
  credential: bearer,
};

export const MODELD: SimUpstream = {
  id: 'modeld-main',
  plugin: 'modeld',
  basePath: '/modeld',
  apiPath: '/v1/messages',
  apiKey: 'sim-modeld-key',
  credential: (apiKey) => ({ 'x-api-key': apiKey }),
};

export const SIM_UPSTREAMS: readonly SimUpstream[] = [MODELA, MODELC, MODELD];

/** The called endpoint's path on the simulator; the bare proxy accepts the same path. */
export const apiPath = (upstream: SimUpstream): string => `${upstream.basePath}${upstream.apiPath}`;
