import type { Socket } from 'node:net';

/**
 * An upstream's connect timeout on a request's socket: `onTimeout` runs if the socket is still connecting
 * after `ms`. A socket reused from the agent is connected already and gets none. Returns the timer (to
 * clear when the request ends first), or undefined when there is none.
 */
export function connectDeadline(
  socket: Socket,
  ms: number,
  onTimeout: () => void,
): NodeJS.Timeout | undefined {
  if (!socket.connecting) return undefined;
  const timer = setTimeout(onTimeout, ms);
  socket.once('connect', () => clearTimeout(timer));
  return timer;
}
