/**
 * Serves a canned reply (the `reply` fault): the bytes a test gave, with its status and content type.
 * An event stream goes out in small pieces of uneven sizes with a turn of the event loop between them,
 * so event boundaries, lines and multi-byte characters fall across reads as they do on a real network;
 * any other body goes out whole, with its length.
 */
import type { Exchange } from './exchange';
import type { CannedReply } from './faults';

/** Piece sizes cycle through these, so boundaries land inside `data:`, between an event's two newlines,
 *  inside JSON and inside multi-byte characters. */
const PIECE_SIZES = [1, 7, 2, 13, 3, 64, 5, 1, 29, 11, 4, 97];

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The reply's body bytes. */
export function replyBytes(reply: CannedReply): Buffer {
  if (reply.body_base64 !== undefined) return Buffer.from(reply.body_base64, 'base64');
  return Buffer.from(reply.body ?? '', 'utf8');
}

async function writeInPieces(ex: Exchange, bytes: Buffer): Promise<void> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    if (ex.closed) return; // the client went away: nothing more to send
    const size = PIECE_SIZES[i % PIECE_SIZES.length]!;
    ex.res.write(bytes.subarray(at, at + size));
    at += size;
    await nextTurn();
  }
  ex.res.end();
}

/** Answers `ex` with `reply`; resolves once the last byte is written (or the client left). */
export async function sendCannedReply(ex: Exchange, reply: CannedReply): Promise<void> {
  const bytes = replyBytes(reply);
  const headers = { ...ex.baseHeaders(), ...reply.headers, 'content-type': reply.content_type };
  if (!reply.content_type.startsWith('text/event-stream')) {
    ex.res.writeHead(reply.status, { ...headers, 'content-length': bytes.length });
    ex.res.end(bytes);
    return;
  }
  ex.res.writeHead(reply.status, { 'cache-control': 'no-cache', ...headers });
  ex.res.flushHeaders();
  await writeInPieces(ex, bytes);
}
