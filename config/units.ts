/**
 * Zod types for the human units of gateway.yaml: durations (`10s`, `300ms`, `2h`) and sizes (`1mb`, `16kb`).
 * `ms` and `bytes` do the parsing; a bare number is taken as milliseconds or bytes.
 */
import bytes from 'bytes';
import ms from 'ms';
import { z } from 'zod';

/** A duration, parsed to milliseconds. */
export const duration = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  const parsed = typeof value === 'number' ? value : ms(value as ms.StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < 0) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (e.g. 500ms, 10s, 5m)` });
    return z.NEVER;
  }
  return parsed;
});

/** A size, parsed to bytes. */
export const size = z.union([z.number().int().nonnegative(), z.string()]).transform((value, ctx) => {
  const parsed = typeof value === 'number' ? value : bytes.parse(value);
  if (parsed === null || !Number.isFinite(parsed) || parsed < 0) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a size (e.g. 16kb, 1mb)` });
    return z.NEVER;
  }
  return parsed;
});

/** A TCP port; 0 asks the OS for a free one (used by tests). */
export const port = z.coerce.number().int().min(0).max(65535);
