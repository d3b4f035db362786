/**
 * API key format and hashing: `sk-` + 32 random bytes (base64url). Stored as HMAC-SHA-256 with a server
 * secret, so a leaked key file reveals no usable key; the first 8 characters after `sk-` stay visible.
 * Keys declared in gateway.yaml are chosen by operators: `sk-` + 32 to 128 base64url characters.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'sk-';
const VISIBLE_CHARS = 8;
/**
 * Generated keys have 43 characters after `sk-` (base64url of 32 bytes); declared ones 32 to 128, so at
 * least 128 bits even when written as hex (`openssl rand -hex 16`).
 */
const KEY_SHAPE = /^sk-[A-Za-z0-9_-]{32,128}$/;
/** A key hash as stored: base64url of an HMAC-SHA-256. */
export const HASH_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface GeneratedKey {
  /** The full key, shown once. */
  readonly key: string;
  /** The visible prefix that identifies it. */
  readonly id: string;
}

export function generateKey(): GeneratedKey {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, id: keyId(key) };
}

export const keyId = (key: string): string => key.slice(0, KEY_PREFIX.length + VISIBLE_CHARS);

/** Cheap syntactic check, so garbage never costs a hash or a store lookup. */
export const looksLikeKey = (candidate: string): boolean => KEY_SHAPE.test(candidate);

export class KeyHasher {
  constructor(private readonly secret: Buffer) {}

  hash(key: string): string {
    return createHmac('sha256', this.secret).update(key).digest('base64url');
  }

  /** Constant-time comparison of two hashes. */
  static same(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
