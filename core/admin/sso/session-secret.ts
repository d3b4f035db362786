/**
 * The secret console sessions are signed with. Every instance must share it, so a session one signs is
 * good on all: GATEWAY_SESSION_SECRET when set, else one derived (HKDF-SHA-256) from the key secret,
 * which instances on one store share already. Derived, not the key secret itself, so a session's
 * signature tells nothing about how keys are hashed.
 */
import { hkdfSync } from 'node:crypto';

export function sessionSecret(fromEnv: string | undefined, keySecret: string): Buffer {
  if (fromEnv) return Buffer.from(fromEnv);
  return Buffer.from(hkdfSync('sha256', keySecret, '', 'gateway console sessions', 32));
}
