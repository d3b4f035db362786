/**
 * Options every upstream entry in gateway.yaml has, whatever its plugin: where it is, its credential and
 * how to send it, extra headers, timeouts. Plugins extend this schema with their own keys.
 */
import { z } from 'zod';
import { duration } from '../../config/units';

interface AuthStyle {
  /** The header that carries the credential. */
  readonly header: string;
  /** Put before the key (`Bearer`); empty sends the key alone (`x-api-key: <key>`). */
  readonly scheme: string;
}

/** The `auth:` block, defaulting to the vendor's own style; a plugin whose vendor differs passes its own. */
export const authOptions = (defaults: AuthStyle) =>
  z
    .object({
      header: z.string().toLowerCase().default(defaults.header),
      scheme: z.string().default(defaults.scheme),
    })
    .strict()
    .default({ ...defaults });

export const upstreamOptions = z
  .object({
    plugin: z.string(),
    base_url: z.url({ protocol: /^https?$/ }),
    api_key: z.string().default(''),
    /** How the credential is sent: `authorization: Bearer <key>` unless configured otherwise. */
    auth: authOptions({ header: 'authorization', scheme: 'Bearer' }),
    /** Extra headers sent on every upstream request (e.g. a version header). */
    headers: z.record(z.string(), z.string()).default({}),
    timeouts: z.object({ connect: duration.optional(), response: duration.optional() }).strict().default({}),
    /** Keep-alive sockets per upstream. */
    max_sockets: z.number().int().positive().default(256),
  })
  .strict();

export type UpstreamOptions = z.output<typeof upstreamOptions>;

/** The headers that carry the upstream's own credential and its configured extras. */
export function credentialHeaders(options: UpstreamOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value;
  if (options.api_key) {
    headers[options.auth.header] = options.auth.scheme
      ? `${options.auth.scheme} ${options.api_key}`
      : options.api_key;
  }
  return headers;
}

/** `base_url` joined with a path, keeping the base's own path (`…/v1` + `/chat/completions`). */
export function upstreamUrl(options: UpstreamOptions, path: string): URL {
  return new URL(options.base_url.replace(/\/+$/, '') + path);
}
