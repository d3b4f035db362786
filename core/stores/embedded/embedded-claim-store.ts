/**
 * Claims in one small JSON file under the data directory (`claims.json`), held in memory and rewritten
 * atomically on each new claim. The data directory belongs to one process, so a check and a set in
 * memory without a break between them decide; the file keeps claims across a restart. Read on first
 * use: a gateway that never claims never touches it.
 */
import { join } from 'node:path';
import type { ClaimStore } from '../claim-store';
import { readFileIfExists, writeFileAtomic } from './atomic-file';

interface Claim {
  readonly owner: string;
  /** Epoch ms. */
  readonly expires_at: number;
}

interface ClaimFile {
  version: 1;
  claims: Record<string, Claim>;
}

export const CLAIMS_FILE = 'claims.json';

export class EmbeddedClaimStore implements ClaimStore {
  private readonly file: string;
  private claims: Map<string, Claim> | undefined;
  private loading: Promise<Map<string, Claim>> | undefined;
  /** Writes are chained so two quick claims can not overwrite each other out of order. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.file = join(dataDir, CLAIMS_FILE);
  }

  async claim(name: string, owner: string, expiresAt: number): Promise<boolean> {
    const claims = await this.load();
    const held = claims.get(name);
    if (held && held.expires_at > this.clock()) return held.owner === owner;
    const claim = { owner, expires_at: expiresAt };
    claims.set(name, claim);
    try {
      await this.persist(claims);
    } catch (e) {
      // Not written, so not claimed: the next try claims again.
      if (claims.get(name) === claim) claims.delete(name);
      throw e;
    }
    return true;
  }

  async close(): Promise<void> {
    await this.writing.catch(() => undefined);
  }

  private load(): Promise<Map<string, Claim>> {
    if (this.claims) return Promise.resolve(this.claims);
    this.loading ??= readFileIfExists(this.file)
      .then((text) => {
        const parsed = text ? (JSON.parse(text) as ClaimFile).claims : {};
        this.claims = new Map(Object.entries(parsed));
        return this.claims;
      })
      .catch((e: unknown) => {
        this.loading = undefined; // read again on the next claim
        throw e;
      });
    return this.loading;
  }

  /** Writes the live claims (expired ones are dropped here, so the file stays small). */
  private persist(claims: Map<string, Claim>): Promise<void> {
    const now = this.clock();
    for (const [name, claim] of claims) if (claim.expires_at <= now) claims.delete(name);
    const file: ClaimFile = { version: 1, claims: Object.fromEntries(claims) };
    const write = this.writing
      .catch(() => undefined)
      .then(() => writeFileAtomic(this.file, JSON.stringify(file)));
    this.writing = write;
    return write;
  }
}
