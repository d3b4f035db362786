/**
 * The only form in which the admin API shows a team record: fields are copied by name, so anything
 * added to TeamRecord later reaches an answer only when it is added here.
 */
import type { TeamRecord } from '../stores/team-store';
import type { PublicTeam } from './wire';

export function publicTeam(record: TeamRecord): PublicTeam {
  return {
    id: record.id,
    name: record.name,
    ...(record.budget !== undefined
      ? { budget: { amount_micros: record.budget.amount_micros, period: record.budget.period } }
      : {}),
    ...(record.rate_limit_rpm !== undefined ? { rate_limit_rpm: record.rate_limit_rpm } : {}),
    ...(record.rate_limit_tpm !== undefined ? { rate_limit_tpm: record.rate_limit_tpm } : {}),
    ...(record.max_concurrent !== undefined ? { max_concurrent: record.max_concurrent } : {}),
    allowed_models: [...record.allowed_models],
    ...(record.guardrails !== undefined ? { guardrails: [...record.guardrails] } : {}),
    ...(record.allowed_tools !== undefined ? { allowed_tools: [...record.allowed_tools] } : {}),
    metadata: { ...record.metadata },
    created_at: record.created_at,
  };
}
