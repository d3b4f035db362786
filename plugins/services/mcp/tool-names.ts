/**
 * How the gateway names what its servers expose: `<server>__<name>`, so tools of different servers never
 * collide and each call finds its server again from the name alone.
 */
export const SEPARATOR = '__';

export const gatewayName = (server: string, name: string): string => `${server}${SEPARATOR}${name}`;

/** The server and its own name, or undefined for a name the gateway never gave. */
export function splitName(name: string): { readonly server: string; readonly name: string } | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0 || at + SEPARATOR.length >= name.length) return undefined;
  return { server: name.slice(0, at), name: name.slice(at + SEPARATOR.length) };
}
