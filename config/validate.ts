import { type z } from 'zod';
import { ConfigError, formatPath } from './errors';

/**
 * Parses `input` with `schema`; on failure throws a ConfigError naming the first bad field's path
 * under `base`, so every section (core's and each plugin's options) reports its errors the same way.
 */
export function parseSection<S extends z.ZodType>(schema: S, input: unknown, base: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.map((k) => `"${k}"`).join(', ')})` : '';
  throw new ConfigError(formatPath(base, issue.path), `${issue.message}${keys}`);
}
