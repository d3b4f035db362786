/**
 * The Portkey gateway as a target (`--peer portkey`): its own Node server, pointed per request at the
 * same simulator endpoints as the other targets through its `x-portkey-*` headers.
 */
import { join } from 'node:path';
import type { BenchCase } from './cases';
import { freePort, LOOPBACK, waitForPort } from './ports';
import type { PortkeyInstall } from './portkey-install';
import { Child } from './processes';
import { JSON_TYPE, STARTUP_MS, targetNodeArgs, type LoadRequest, type Target } from './targets';
import { apiPath } from './upstreams';

/** Portkey's provider for each simulated vendor (SimUpstream.plugin): the API that vendor speaks. */
const PROVIDERS: Readonly<Record<string, string>> = {
  modela: 'openai',
  modelc: 'openai',
  modeld: 'anthropic',
};

/** The public API version prefix Portkey serves its routes under and its providers' base URLs end in. */
const V1 = '/v1';

/**
 * `benchCase` as Portkey takes it: sent to Portkey's own path for the API (the gateway's path), with the
 * provider, and as custom host the simulator's base URL for it; Portkey appends the endpoint
 * (`/chat/completions`, `/messages`) to that host, so the request reaches the very path the bare proxy
 * forwards to. The case's own headers (a version header) are forwarded, which Portkey does only when told.
 */
export function portkeyRequest(portkeyUrl: string, simUrl: string, benchCase: BenchCase): LoadRequest {
  const { upstream, gatewayPath, headers } = benchCase;
  const provider = PROVIDERS[upstream.plugin];
  const endpoint = gatewayPath.startsWith(V1) ? gatewayPath.slice(V1.length) : undefined;
  const simPath = apiPath(upstream);
  if (provider === undefined || endpoint === undefined || !simPath.endsWith(endpoint))
    throw new Error(`Portkey cannot serve the ${benchCase.name} case (${upstream.plugin} ${gatewayPath})`);
  const forwarded = Object.keys(headers);
  return {
    url: `${portkeyUrl}${gatewayPath}`,
    headers: {
      ...JSON_TYPE,
      'x-portkey-provider': provider,
      'x-portkey-custom-host': `${simUrl}${simPath.slice(0, -endpoint.length)}`,
      ...upstream.credential(upstream.apiKey),
      ...(forwarded.length > 0 ? { 'x-portkey-forward-headers': forwarded.join(',') } : {}),
      ...headers,
    },
    body: benchCase.body,
  };
}

/**
 * Starts Portkey's Node server (`--port=N`; `--headless` and NODE_ENV=production leave out its
 * browser console and log stream, as a deployment would), its output in a file under `tmpDir`.
 */
export async function startPortkey(install: PortkeyInstall, simUrl: string, tmpDir: string): Promise<Target> {
  const port = await freePort();
  const child = Child.start(
    'portkey',
    install.entry,
    [`--port=${port}`, '--headless'],
    { NODE_ENV: 'production' },
    { nodeArgs: targetNodeArgs(), stdoutFile: join(tmpDir, 'portkey.log') },
  );
  await waitForPort(port, STARTUP_MS).catch((err: unknown) => {
    child.assertAlive(); // a crash says more than the timeout
    throw err;
  });
  const url = `http://${LOOPBACK}:${port}`;
  return { name: 'portkey', child, request: (c) => portkeyRequest(url, simUrl, c) };
}
