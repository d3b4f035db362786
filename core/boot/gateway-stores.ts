/**
 * A gateway's stores, opened first: the embedded ones lock the data directory before anything in it is
 * read or created. Flushed last, since every part that writes needs them.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { KeyStore } from '../stores/key-store';
import { openStores } from '../stores/open-stores';
import type { Stores } from '../stores/stores';
import type { TeamStore } from '../stores/team-store';
import type { WithParts } from './part';

export interface StoresNeeds {
  readonly logger: Logger;
  /** Stores given in place of the configured ones' (tests of several instances over one store). */
  readonly keyStore?: KeyStore | undefined;
  readonly teamStore?: TeamStore | undefined;
}

export async function gatewayStores(
  config: GatewayConfig,
  { logger, keyStore, teamStore }: StoresNeeds,
): Promise<WithParts<{ stores: Stores }>> {
  const stores = await openStores(config.storage, logger, config.audit);
  return {
    stores: { ...stores, keys: keyStore ?? stores.keys, teams: teamStore ?? stores.teams },
    // Usage written while the rest stops is kept, retried for what is left of the grace period (at least
    // a second).
    parts: [{ name: 'stores', stop: (deadline) => stores.close(Math.max(1_000, deadline - Date.now())) }],
  };
}
