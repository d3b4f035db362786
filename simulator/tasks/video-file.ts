import type { IncomingMessage } from 'node:http';
import { requestOrigin } from '../request-origin';

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

/** The address of task `id`'s video, on the host the client reached the simulator by. */
export const videoUrl = (req: IncomingMessage, id: string): string =>
  `${requestOrigin(req)}${VIDEO_PATH}${encodeURIComponent(id)}${VIDEO_SUFFIX}`;

/** The task id a video file name stands for, or undefined when the name is not `<id>.mp4`. */
export const videoTaskId = (file: string): string | undefined =>
  file.endsWith(VIDEO_SUFFIX) && file.length > VIDEO_SUFFIX.length
    ? file.slice(0, -VIDEO_SUFFIX.length)
    : undefined;
