/**
 * A usage record's line in `usage.jsonl` as a JSON Schema: the record's fixed shape, from which `npm run
 * build` compiles the line's serializer (scripts/build-serializers.js).
 */
import type { UsageRecord } from '../usage-store';

const text = { type: 'string' } as const;
const number = { type: 'number' } as const;
const flag = { type: 'boolean' } as const;

/** Every field of UsageRecord, in its order (the type makes a field added there fail to compile here). */
const properties: Readonly<Record<keyof UsageRecord, object>> = {
  id: text,
  key_id: { type: ['string', 'null'] },
  team_id: text,
  model: text,
  upstream: text,
  endpoint: text,
  status: number,
  stream: flag,
  prompt_tokens: number,
  completion_tokens: number,
  reasoning_tokens: number,
  total_tokens: number,
  cache_read_tokens: number,
  cache_write_tokens: number,
  images: number,
  image_size: text,
  image_quality: text,
  video_seconds: number,
  resolution: text,
  cost_micros: { type: ['number', 'null'] },
  cache: text,
  saved_micros: { type: ['number', 'null'] },
  guardrail: {
    type: 'array',
    items: { type: 'object', properties: { name: text, action: text }, required: ['name', 'action'] },
  },
  tool: text,
  server: text,
  batch_id: text,
  custom_id: text,
  once: flag,
  estimated: flag,
  outcome: text,
  latency_ms: number,
  created_at: text,
};

/** The schema the usage line's serializer is compiled from. */
export const usageLineSchema = { type: 'object', properties } as const;
