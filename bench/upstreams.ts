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
  /** Base path of its OpenAI-style API on the simulator. */
  readonly basePath: string;
  readonly apiKey: string;
}

export const MODELA: SimUpstream = {
  id: 'modela-main',
  plugin: 'modela',
  basePath: '/modela/v1',
  apiKey: 'sim-modela-key',
};

export const MODELC: SimUpstream = {
  id: 'modelc-main',
  plugin: 'modelc',
  basePath: '/modelc/compatible-mode/v1',
  apiKey: 'sim-modelc-key',
};

export const SIM_UPSTREAMS: readonly SimUpstream[] = [MODELA, MODELC];

/** The chat endpoint's path on the simulator; the bare proxy accepts the same path. */
export const chatPath = (upstream: SimUpstream): string => `${upstream.basePath}/chat/completions`;
