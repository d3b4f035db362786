/**
 * What the access log and the metrics read about a request beyond its context's fields. The proxy (and the
 * video submit) add the upstream's time, so a request's time splits into the gateway's own and the upstream's.
 */
export interface Observed {
  /** Time spent on upstreams, every attempt together: from sending the request to the response's last byte. */
  upstreamMs: number;
  /** `performance.now()` when the first event of a streamed body went to the client; 0 until then. */
  firstByteAt: number;
  /** Request body bytes read (0 when the body was never read). */
  bytesIn: number;
  /** The socket's `bytesWritten` when the request arrived: the response's bytes are the difference. */
  readonly writtenBefore: number;
  /** The code of the gateway's own error the client was answered with, if any. */
  errorCode: string | undefined;
}
