/**
 * A JSON answer on its way to the client (an upstream's, or a stage's own), as the response phase sees
 * and changes it, and how it is then written.
 */
import { isJsonObject, type JsonObject } from '../base/json';
import { sendError, type GatewayError } from '../base/errors';
import type { JsonAnswer } from '../contracts/stage';
import type { ServedRequest } from '../request/served-request';

type Headers = Record<string, string | number | readonly string[]>;

export class ClientAnswer implements JsonAnswer {
  /** The error the client gets instead, once a stage refused the answer. */
  refused: GatewayError | undefined;
  changed = false;
  private parsed: JsonObject | undefined;
  private wasParsed: boolean;

  constructor(
    public status: number,
    readonly headers: Headers,
    public bytes: Buffer,
    /** The body already parsed by whoever made it (the family's reader, a stage), so it is not parsed again. */
    parsed?: JsonObject,
  ) {
    this.parsed = parsed;
    this.wasParsed = parsed !== undefined;
  }

  json(): JsonObject | undefined {
    if (!this.wasParsed) {
      this.wasParsed = true;
      try {
        const value: unknown = JSON.parse(this.bytes.toString('utf8'));
        this.parsed = isJsonObject(value) ? value : undefined;
      } catch {
        this.parsed = undefined;
      }
    }
    return this.parsed;
  }

  replace(body: JsonObject, status?: number): void {
    this.parsed = body;
    this.wasParsed = true;
    this.bytes = Buffer.from(JSON.stringify(body));
    if (status !== undefined) this.status = status;
    this.changed = true;
  }

  refuse(error: GatewayError): void {
    this.refused = error;
    this.changed = true;
  }
}

/**
 * Writes a JSON answer's status, headers and body in one go. An error status is the vendor's, relayed,
 * unless a stage answered the request itself.
 */
export function writeBody(ctx: ServedRequest, status: number, headers: Headers, body: Buffer): void {
  headers['content-length'] = body.length;
  ctx.status = status;
  if (status >= 400) ctx.outcome = ctx.answeredBy ? 'refused' : 'vendor_error';
  ctx.res.writeHead(status, headers as Record<string, string>);
  ctx.res.end(body);
}

/** Writes the answer as the stages left it: its body, or the error a stage refused it with. */
export function writeAnswer(ctx: ServedRequest, answer: ClientAnswer): void {
  if (ctx.res.destroyed) return;
  const { refused } = answer;
  if (!refused) return writeBody(ctx, answer.status, answer.headers, answer.bytes);
  ctx.status = refused.status;
  ctx.outcome = 'refused';
  ctx.observed.errorCode = refused.code;
  sendError(ctx.res, refused, ctx.requestId, ctx.replyHeaders);
}
