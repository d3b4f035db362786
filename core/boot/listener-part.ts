/** A listener (the gateway's or the admin API's) as a lifecycle part. */
import type { GatewayConfig } from '../../config/schema';
import { variablesOf } from '../../config/load';
import { listenAddress, type ListenAddress } from '../http/listen-address';
import { listenNamed, type ListenerPlace } from '../http/listen-failure';
import type { Part } from './part';

/** The main listener's part name: the parts that must run only once it listens need it. */
export const GATEWAY_LISTENER = 'the gateway';
/** The admin listener's part name. */
export const ADMIN_LISTENER = 'the admin API';

export type ListenerPart = Part & { address(): ListenAddress };

/** A listener as a lifecycle part: it binds when started (a failure names it) and then knows its address. */
export function listenerPart(
  config: GatewayConfig,
  section: 'server' | 'admin',
  listener: {
    readonly needs: readonly string[];
    listen(host: string, port: number): Promise<number>;
    stop(deadline: number): Promise<void>;
  },
): ListenerPart {
  const place = listenerOf(config, section);
  const { host, port } = config[section];
  let bound: ListenAddress | undefined;
  return {
    name: place.what,
    needs: listener.needs,
    start: async () => {
      bound = listenAddress(host, await listenNamed(place, host, port, () => listener.listen(host, port)));
    },
    stop: (deadline) => listener.stop(deadline),
    address: () => {
      if (!bound) throw new Error(`${place.what} is not listening`);
      return bound;
    },
  };
}

/** The main or admin listener, named in a bind failure with what overrides its port. */
const listenerOf = (config: GatewayConfig, section: 'server' | 'admin'): ListenerPlace => ({
  what: section === 'server' ? GATEWAY_LISTENER : ADMIN_LISTENER,
  setting: `${section}.port`,
  variables: variablesOf(config, `${section}.port`),
});
