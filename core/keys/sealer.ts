/**
 * Seals small JSON values into opaque tokens that only the gateway's instances can open: AES-256-GCM under
 * a key derived (HKDF) from the key secret every instance sharing a store shares. A plugin keeps state in
 * what the client carries this way (an MCP session id holding its upstream sessions), so any instance
 * behind a balancer can serve the next request, and the client can neither read nor forge it.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { token } from '../base/token';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly secret: Buffer) {}

  /** `value` as a base64url token; `purpose` keeps one use's tokens from opening as another's. */
  seal(purpose: string, value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyFor(purpose), iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  }

  /** The value sealed for `purpose`, or undefined for anything else (forged, altered, another secret's). */
  open(purpose: string, sealed: string): unknown {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keyFor(purpose), bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  private keyFor(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.secret, Buffer.alloc(0), `gateway sealed ${purpose}`, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }
}

export const SealerToken = token<Sealer>('Sealer');
