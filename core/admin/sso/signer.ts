/**
 * Values the gateway hands the browser and must get back unchanged: JSON with an expiry, signed with
 * HMAC-SHA-256 under the session secret. Each use signs under its own purpose, so a value made for one
 * (the sign-in under way) is never taken for another (a session). Signed, not encrypted: they hold
 * nothing the browser that carries them may not see, and the cookies are HttpOnly all the same.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';

export class Signer {
  constructor(private readonly secret: Buffer) {}

  /** `payload` as `<base64url JSON>.<base64url MAC>`, good until `expiresAt` (ms since the epoch). */
  sign(purpose: string, payload: object, expiresAt: number): string {
    const body = Buffer.from(JSON.stringify({ exp: expiresAt, value: payload })).toString('base64url');
    return `${body}.${this.mac(purpose, body).toString('base64url')}`;
  }

  /** The payload `sign` made for `purpose`, in `shape`; undefined when altered, expired or of another shape. */
  verify<T>(purpose: string, signed: string, shape: z.ZodType<T>, now = Date.now()): T | undefined {
    const [body, mac, extra] = signed.split('.');
    if (!body || !mac || extra !== undefined) return undefined;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(purpose, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const envelope = parseJson(Buffer.from(body, 'base64url').toString('utf8'));
    if (!isEnvelope(envelope) || envelope.exp <= now) return undefined;
    const parsed = shape.safeParse(envelope.value);
    return parsed.success ? parsed.data : undefined;
  }

  private mac(purpose: string, body: string): Buffer {
    return createHmac('sha256', this.secret).update(`${purpose}\n${body}`).digest();
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isEnvelope = (v: unknown): v is { exp: number; value: unknown } =>
  typeof v === 'object' && v !== null && typeof (v as { exp?: unknown }).exp === 'number';
