import type { IncomingMessage } from 'node:http';

/** Where finished videos are served, below the simulator's base URL. */
export const VIDEO_PATH = '/_sim/videos/';
/** The suffix of every video file name. */
export const VIDEO_SUFFIX = '.mp4';

/**
 * A minimal ISO-BMFF `ftyp` box (brand isom, compatible isom and mp42): enough for a client that
 * sniffs or stores the file, not a playable video.
 */
export const VIDEO_BYTES: Buffer = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from('ftypisom', 'latin1'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isommp42', 'latin1'),
]);

/** The address the request came in on, for the rare client that sends no Host header. */
function socketHost(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/**
 * The address of task `id`'s video, on the host the client reached the simulator by (its Host
 * header), so the URL works through port mappings and from other machines alike.
 */
export function videoUrl(req: IncomingMessage, id: string): string {
  const host = req.headers.host ?? socketHost(req);
  return `http://${host}${VIDEO_PATH}${encodeURIComponent(id)}${VIDEO_SUFFIX}`;
}

/** The task id a video file name stands for, or undefined when the name is not `<id>.mp4`. */
export const videoTaskId = (file: string): string | undefined =>
  file.endsWith(VIDEO_SUFFIX) && file.length > VIDEO_SUFFIX.length
    ? file.slice(0, -VIDEO_SUFFIX.length)
    : undefined;
