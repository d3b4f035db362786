/**
 * `x-gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The time is
 * signed with the body, so a receiver that refuses old times (a few minutes) refuses a replayed delivery;
 * each attempt is signed anew, so a retry after a long backoff still passes.
 */
import { createHmac } from 'node:crypto';

export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
