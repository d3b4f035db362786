/** One thing wrong in gateway.yaml: the path of the offending field and why. */
export interface ConfigProblem {
  readonly path: string;
  readonly reason: string;
}

/**
 * A configuration problem, with the path of the offending field in gateway.yaml
 * (`pipeline[1].rate-limit.requests_per_minute`). It may carry several: a file is checked as a whole, so
 * one start-up reports every field to fix, not one per try. `path` and `reason` are the first's.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly path: string,
    readonly reason: string,
    readonly file?: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ path, reason }, ...more];
    super(`${file ? `${file}: ` : ''}${describe(problems)}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }

  /** An error holding every problem given (at least one). */
  static of(problems: readonly ConfigProblem[], file?: string): ConfigError {
    const [first, ...more] = problems;
    if (!first) throw new Error('ConfigError.of needs at least one problem');
    return new ConfigError(first.path, first.reason, file, more);
  }

  /** The same problems, named in `file` (plugin sections are checked after the file was read). */
  inFile(file: string): ConfigError {
    return this.file ? this : ConfigError.of(this.problems, file);
  }
}

const line = ({ path, reason }: ConfigProblem): string => `${path ? `${path}: ` : ''}${reason}`;

/** One problem on the line; several as a count, then one indented line each. */
function describe(problems: readonly ConfigProblem[]): string {
  if (problems.length === 1) return line(problems[0]!);
  return `${problems.length} problems:\n${problems.map((p) => `  ${line(p)}`).join('\n')}`;
}

/** Joins a zod issue path into the dotted form used in messages; array indexes become `[i]`. */
export function formatPath(base: string, segments: readonly PropertyKey[]): string {
  let out = base;
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}
