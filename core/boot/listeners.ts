/**
 * The gateway's listener and what turns on with it: the server that answers the APIs (health endpoints
 * included), the first key of a new gateway, and readiness. The listener needs every part it serves
 * from, so it starts accepting last and stops accepting first; readiness comes after it, so /readyz
 * answers 503 on the connections still open while the rest stops.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { Readiness } from '../health/readiness';
import { requestBodies } from '../http/body';
import { HealthEndpoints } from '../http/health-endpoints';
import type { Loopback } from '../http/loopback';
import type { CreatedKey, KeyService } from '../keys/key-service';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import type { LiveRouting } from '../reload/live-routing';
import type { Resilience } from '../routing/resilience';
import { GatewayServer } from '../server/gateway-server';
import type { Stores } from '../stores/stores';
import type { TaskPoller } from '../tasks/poller';
import { ADMIN_LISTENER, GATEWAY_LISTENER, listenerPart, type ListenerPart } from './listener-part';
import type { Observability } from './observability';
import type { WithParts } from './part';

export interface ListenerNeeds extends Observability {
  readonly logger: Logger;
  readonly routing: LiveRouting;
  readonly proxy: UpstreamProxy;
  readonly resilience: Resilience;
  readonly readiness: Readiness;
  readonly keys: KeyService;
  readonly stores: Stores;
  readonly poller: TaskPoller | undefined;
  readonly loopback: Loopback;
}

export interface Listening {
  readonly listener: ListenerPart;
  /** The key created on a first start with no keys and none declared, once started. */
  readonly firstKey: () => CreatedKey | undefined;
}

export function gatewayListener(
  config: GatewayConfig,
  needs: ListenerNeeds,
  partsNeeded: readonly string[],
): WithParts<Listening> {
  const { proxy, readiness } = needs;
  const server = gatewayServer(config, needs);
  watchedByMetrics(server, needs);
  const listener = listenerPart(config, 'server', {
    // The admin API stays up (health, metrics) while the gateway drains.
    needs: [...partsNeeded, ADMIN_LISTENER],
    listen: async (host, port) => {
      const bound = await server.listen(host, port);
      await needs.loopback.open(server.server);
      return bound;
    },
    stop: (deadline) => {
      needs.loopback.close();
      return drain(server, proxy, deadline);
    },
  });
  let firstKey: CreatedKey | undefined;
  return {
    listener,
    firstKey: () => firstKey,
    parts: [
      listener,
      {
        name: 'first key',
        // Once both listeners are bound: a start that fails to bind makes no key, stored and never shown.
        needs: [GATEWAY_LISTENER, ADMIN_LISTENER],
        // A deployment that declares its keys has them: a stored key nobody asked for would be a surprise.
        start: async () => {
          if (config.keys.declared.length === 0)
            firstKey = await needs.keys.createFirst({ description: 'created on first start' });
        },
      },
      // Last to start, first to stop.
      {
        name: 'readiness',
        needs: [GATEWAY_LISTENER, ADMIN_LISTENER, 'first key'],
        start: () => readiness.serving(),
        stop: () => readiness.drain(),
      },
    ],
  };
}

function gatewayServer(config: GatewayConfig, needs: ListenerNeeds): GatewayServer {
  const { server } = config;
  return new GatewayServer(
    needs.routing,
    server,
    requestBodies({
      maxBytes: server.body_limit,
      idleMs: server.timeouts.body_read,
      totalMs: server.timeouts.body_total,
      maxJsonDepth: server.max_json_depth,
    }),
    needs.logger,
    needs.observer,
    new HealthEndpoints(needs.readiness),
    needs.tracing?.requests,
  );
}

/** What the metrics read at scrape time from the parts built after them. */
function watchedByMetrics(server: GatewayServer, needs: ListenerNeeds): void {
  const { proxy, resilience, stores, poller } = needs;
  needs.metrics.watch({
    inFlight: () => server.requestsInFlight,
    openStreams: () => proxy.openStreamCount,
    ejectedUpstreams: () => resilience.health.ejectedCount,
    usage: () => stores.usage.stats(),
    ...(poller ? { taskCounts: () => stores.tasks.countByStatus() } : {}),
  });
}

/**
 * The listener's stop: no new connections, requests in flight finish within the grace period, then open
 * streams end with their API's error frame (never a silent cut) and the last connections close.
 */
async function drain(server: GatewayServer, proxy: UpstreamProxy, deadline: number): Promise<void> {
  server.stopAccepting();
  if (!(await server.waitIdle(Math.max(0, deadline - Date.now())))) {
    proxy.endOpenStreams();
    await server.waitIdle(1_000);
  }
  server.closeAllConnections();
}
