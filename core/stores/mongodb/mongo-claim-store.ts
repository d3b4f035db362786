/**
 * Claims in a MongoDB collection, one document per name with the name as `_id`: of several instances
 * inserting the same name, exactly one insert succeeds. Needs no index of its own (`_id` is unique), so
 * the deploy step is unchanged. Without a TTL index expired claims stay (one small document per crossing)
 * and are taken over in place, by a conditional update, when their name is claimed again.
 */
import type { Collection, Db } from 'mongodb';
import type { ClaimStore } from '../claim-store';
import { isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';

interface ClaimDocument {
  _id: string;
  owner: string;
  expires_on: Date;
}

export const CLAIMS_COLLECTION = 'claims';

export class MongoClaimStore implements ClaimStore {
  private constructor(
    private readonly claims: Collection<ClaimDocument>,
    private readonly clock: () => number,
  ) {}

  static open(db: Db, options: MongoStoreOptions = {}, clock: () => number = Date.now): MongoClaimStore {
    const name = options.collection ?? CLAIMS_COLLECTION;
    return new MongoClaimStore(db.collection<ClaimDocument>(name, STORE_COLLECTION_OPTIONS), clock);
  }

  async claim(name: string, owner: string, expiresAt: number): Promise<boolean> {
    const expires_on = new Date(expiresAt);
    try {
      await this.claims.insertOne({ _id: name, owner, expires_on });
      return true;
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
    }
    // Taken: by this owner on an earlier try whose answer was lost, or expired and free again.
    const held = await this.claims.findOneAndUpdate(
      { _id: name, $or: [{ owner }, { expires_on: { $lte: new Date(this.clock()) } }] },
      { $set: { owner, expires_on } },
    );
    return held !== null;
  }

  /** Nothing to release: the client belongs to whoever connected it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
