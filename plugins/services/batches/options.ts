/**
 * The `batches:` section of gateway.yaml: OpenAI's files and batches API (and Anthropic's message
 * batches) on the gateway's port, for every chat and embeddings model. Caps are OpenAI's by default.
 * @example
 * batches:
 *   max_file_size: 200mb
 *   max_lines: 50000
 *   lines_per_second: 20
 */
import { z } from 'zod';
import { duration, size } from '../../../core/kit/plugin';

export const batchOptions = z
  .object({
    /** The largest input file an upload may carry. */
    max_file_size: size.refine((n) => n > 0, 'must be above 0').default(200 * 1024 * 1024),
    /** The most requests one input file may hold. */
    max_lines: z.number().int().positive().default(50_000),
    /**
     * Lines of a batch the gateway runs itself sent per second, per batch (each still under its key's
     * rate limits, which refuse a line the gateway then sends again later).
     */
    lines_per_second: z.number().positive().default(10),
    /** Lines of one batch in flight at once. */
    line_concurrency: z.number().int().positive().default(4),
    /** How often a batch a vendor runs is asked about. */
    native_poll_every: duration.refine((ms) => ms >= 10, 'must be at least 10ms').default(10_000),
    /** Batch steps one instance runs at once (each works on one batch). */
    concurrency: z.number().int().positive().default(8),
    /** How long a batch may run before it expires (OpenAI's only `completion_window` is 24h). */
    completion_window: duration.refine((ms) => ms >= 1_000, 'must be at least 1s').default(24 * 3600_000),
  })
  .strict();

export type BatchOptions = z.output<typeof batchOptions>;
