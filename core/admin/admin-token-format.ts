/**
 * Admin token format: `gat-` + 32 random bytes (base64url), hashed like API keys (HMAC-SHA-256 with the
 * key secret, core/keys/api-key.ts). The prefix can never pass as an API key (`sk-`), so a token pasted
 * where a key goes is refused by shape, and the reverse too. The first 8 characters after `gat-` stay
 * visible as the token's id.
 */
import { randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'gat-';
const VISIBLE_CHARS = 8;
const TOKEN_SHAPE = /^gat-[A-Za-z0-9_-]{43}$/;

export interface GeneratedToken {
  /** The full token, shown once. */
  readonly token: string;
  readonly id: string;
}

export function generateAdminToken(): GeneratedToken {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, id: adminTokenId(token) };
}

export const adminTokenId = (token: string): string => token.slice(0, TOKEN_PREFIX.length + VISIBLE_CHARS);

/** Cheap syntactic check, so anything else never costs a hash or a store lookup. */
export const looksLikeAdminToken = (candidate: string): boolean => TOKEN_SHAPE.test(candidate);
