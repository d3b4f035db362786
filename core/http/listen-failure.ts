/**
 * A listener that cannot bind says which listener it is and how to move it. Node's own error
 * (`listen EADDRINUSE: address already in use 127.0.0.1:9100`) names neither, and a second instance
 * started with the same file meets it on whichever port comes first.
 */

/** Which listener, the setting that places it, and the environment variables that override it. */
export interface ListenerPlace {
  /** `the gateway`, `the admin API`, `the bundled simulator`. */
  readonly what: string;
  /** `server.port` */
  readonly setting: string;
  /** `PORT`; empty when only the file sets it. */
  readonly variables: readonly string[];
  /** A further way out, e.g. turning the listener off. */
  readonly orElse?: string;
}

/** Runs `listen`; a bind failure is thrown again as an error naming the listener and the fix. */
export async function listenNamed<T>(
  place: ListenerPlace,
  host: string,
  port: number,
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (e) {
    throw explained(e, place, `${host}:${port}`);
  }
}

function explained(e: unknown, place: ListenerPlace, address: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  const why = WHY[code ?? ''];
  if (!why) return e;
  const how = place.variables.length
    ? `set ${place.variables.join(' or ')} to another port (${place.setting})`
    : `change ${place.setting}`;
  const orElse = place.orElse ? `, or ${place.orElse}` : '';
  return new Error(`${place.what} cannot listen on ${address}: ${why}; ${how}${orElse}`, { cause: e });
}

const WHY: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use (another gateway started with the same file?)',
  EACCES: 'not allowed to bind that port (below 1024 needs privileges)',
};
