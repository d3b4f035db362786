/**
 * Keys declared in gateway.yaml (`keys.declared`): the same records as stored keys, built once at start-up
 * and held in memory, so every instance given the same file accepts them without a store. Read-only: they
 * change when the file does (and the instance restarts).
 *
 * The id is `declared:<name>`: stable across instances (the name is in the file), never equal to a stored
 * id (those are `sk-` + 8 base64url characters, without `:`), readable in usage records, and the same rule
 * whether the entry gives the secret or only its hash (whose visible prefix the gateway cannot know).
 */
import { ConfigError } from '../../config/errors';
import type { DeclaredKeyConfig } from '../../config/schema';
import type { KeyRecord, KeyStore } from '../stores/key-store';
import type { KeyHasher } from './api-key';

export const DECLARED_ID_PREFIX = 'declared:';

export const declaredId = (name: string): string => DECLARED_ID_PREFIX + name;

/** Where an entry is in gateway.yaml, for error messages. */
const entryPath = (i: number): string => `keys.declared[${i}]`;

export class DeclaredKeys {
  private readonly byHash = new Map<string, KeyRecord>();
  private readonly byId = new Map<string, KeyRecord>();

  /**
   * Hashes the entries given by secret; a secret or hash given twice stops start-up, naming both entries.
   * `createdAt`: when this instance read the file (declared keys have no creation of their own).
   */
  constructor(entries: readonly DeclaredKeyConfig[], hasher: KeyHasher, createdAt: string) {
    const index = new Map<string, number>();
    entries.forEach((entry, i) => {
      const hash = entry.hash ?? hasher.hash(entry.secret!);
      const other = index.get(hash);
      if (other !== undefined) {
        throw new ConfigError(
          entryPath(i),
          `declared key '${entry.name}' has the same key as '${entries[other]!.name}' (${entryPath(other)})`,
        );
      }
      index.set(hash, i);
      const record = toRecord(entry, hash, createdAt);
      this.byHash.set(hash, record);
      this.byId.set(record.id, record);
    });
  }

  /** The record whose hash this is (hashes are HMACs with a secret, so map lookups leak nothing useful). */
  findByHash(hash: string): KeyRecord | undefined {
    return this.byHash.get(hash);
  }

  findById(id: string): KeyRecord | undefined {
    return this.byId.get(id);
  }

  list(): KeyRecord[] {
    return [...this.byId.values()];
  }

  /** Stops start-up when a stored key has a declared key's hash: one key would have two records. */
  async checkAgainst(store: KeyStore): Promise<void> {
    let i = 0;
    for (const record of this.byId.values()) {
      const stored = await store.findByHash(record.hash);
      if (stored) {
        throw new ConfigError(
          entryPath(i),
          `declared key '${record.id}' has the same key as the stored key ${stored.id}: delete or rotate that one, or declare another`,
        );
      }
      i++;
    }
  }
}

/** A limit added to KeyRecord later is one more line here (and one more field in the schema). */
function toRecord(entry: DeclaredKeyConfig, hash: string, createdAt: string): KeyRecord {
  return Object.freeze({
    id: declaredId(entry.name),
    hash,
    description: entry.description,
    enabled: true,
    allowed_models: [...entry.allowed_models],
    ...(entry.rate_limit_rpm !== undefined ? { rate_limit_rpm: entry.rate_limit_rpm } : {}),
    ...(entry.rate_limit_tpm !== undefined ? { rate_limit_tpm: entry.rate_limit_tpm } : {}),
    ...(entry.max_concurrent !== undefined ? { max_concurrent: entry.max_concurrent } : {}),
    ...(entry.expires_at !== undefined ? { expires_at: entry.expires_at } : {}),
    ...(entry.team_id !== undefined ? { team_id: entry.team_id } : {}),
    ...(entry.guardrails?.length ? { guardrails: [...entry.guardrails] } : {}),
    ...(entry.allowed_tools?.length ? { allowed_tools: [...entry.allowed_tools] } : {}),
    created_at: createdAt,
  });
}
