/**
 * A client's MCP session id, as the gateway issues it: the session's state sealed into the id itself
 * (the kit's Sealer). Whichever instance a balancer sends the next request to opens it and reaches the
 * same upstream sessions; the client can neither read them nor forge another's. A session belongs to the
 * API key that opened it: another key presenting it is told it does not exist.
 */
import { z } from 'zod';
import type { Sealer } from '../../../core/kit/service';

const PURPOSE = 'mcp-session';

/** One upstream server's side of a session. */
const upstream = z.object({
  /** The server's session id; empty where the server keeps no sessions. */
  id: z.string(),
  /** The protocol revision the gateway and that server agreed on. */
  version: z.string(),
});
export type UpstreamSession = z.output<typeof upstream>;

const session = z.object({
  /** Names the session in the gateway's own bookkeeping (calls under way, ended sessions). */
  id: z.string(),
  /** The id of the API key that opened it. */
  key: z.string(),
  /** By server name; a server missing here (down at `initialize`, or added since) gets a session per request. */
  servers: z.record(z.string(), upstream),
  /** Epoch ms after which the session no longer opens. */
  expires: z.number(),
});
export type SessionState = z.output<typeof session>;

export const sealSession = (sealer: Sealer, state: SessionState): string => sealer.seal(PURPOSE, state);

/** The session `id` names for key `keyId`, or undefined: forged, altered, expired, or another key's. */
export function openSession(
  sealer: Sealer,
  id: string,
  keyId: string,
  now: number,
): SessionState | undefined {
  const parsed = session.safeParse(sealer.open(PURPOSE, id));
  if (!parsed.success) return undefined;
  const state = parsed.data;
  return state.key === keyId && state.expires > now ? state : undefined;
}
