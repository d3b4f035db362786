/**
 * The only form in which the admin API shows a key record: fields are copied by name, so the hash (and
 * anything secret added to KeyRecord later) can never reach an answer by accident.
 */
import { type KeyRecord, keyStatus } from '../stores/key-store';
import type { PublicKey } from './wire';

export function publicKey(record: KeyRecord, now: number = Date.now()): PublicKey {
  return {
    id: record.id,
    description: record.description,
    enabled: record.enabled,
    status: keyStatus(record, now),
    allowed_models: [...record.allowed_models],
    ...(record.rate_limit_rpm !== undefined ? { rate_limit_rpm: record.rate_limit_rpm } : {}),
    ...(record.rate_limit_tpm !== undefined ? { rate_limit_tpm: record.rate_limit_tpm } : {}),
    ...(record.max_concurrent !== undefined ? { max_concurrent: record.max_concurrent } : {}),
    ...(record.expires_at !== undefined ? { expires_at: record.expires_at } : {}),
    ...(record.budget !== undefined
      ? { budget: { amount_micros: record.budget.amount_micros, period: record.budget.period } }
      : {}),
    ...(record.team_id !== undefined ? { team_id: record.team_id } : {}),
    ...(record.guardrails !== undefined ? { guardrails: [...record.guardrails] } : {}),
    ...(record.allowed_tools !== undefined ? { allowed_tools: [...record.allowed_tools] } : {}),
    created_at: record.created_at,
  };
}
