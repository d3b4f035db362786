/** A configuration problem, with the path of the offending field in gateway.yaml (`pipeline[1].rate-limit.requests_per_minute`). */
export class ConfigError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}${path ? `${path}: ` : ''}${reason}`);
    this.name = 'ConfigError';
  }
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
