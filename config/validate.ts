import { type z } from 'zod';
import { ConfigError, formatPath, type ConfigProblem } from './errors';

/**
 * Parses `input` with `schema`; on failure throws a ConfigError naming every bad field's path under
 * `base`, so every section (core's and each plugin's options) reports its errors the same way.
 */
export function parseSection<S extends z.ZodType>(schema: S, input: unknown, base: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw ConfigError.of(result.error.issues.map((issue) => problemOf(issue, base)));
}

function problemOf(issue: z.core.$ZodIssue, base: string): ConfigProblem {
  const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.map((k) => `"${k}"`).join(', ')})` : '';
  // A record's bad key: zod says only "Invalid key in record"; what the key's schema said is beneath.
  const message =
    issue.code === 'invalid_key' && issue.issues.length > 0
      ? issue.issues.map((inner) => inner.message).join('; ')
      : issue.message;
  return { path: formatPath(base, issue.path), reason: `${message}${keys}` };
}

/**
 * Runs `check` on each item and keeps going past a ConfigError, so that one start-up names every bad
 * entry of a section; throws them all together at the end. Other errors stop at once.
 */
export function checkEach<T, R>(items: readonly T[], check: (item: T, index: number) => R): R[] {
  const problems: ConfigProblem[] = [];
  const results: R[] = [];
  items.forEach((item, i) => {
    try {
      results.push(check(item, i));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
    }
  });
  if (problems.length > 0) throw ConfigError.of(problems);
  return results;
}
