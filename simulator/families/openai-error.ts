import type { SimError } from '../sim-error';

/** The defaults of one status in an OpenAI-shaped error catalog. */
export interface OpenAiErrorDefaults {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
}

/** Status → defaults; `400` and `500` must be present, as they cover unlisted statuses. */
export type OpenAiErrorCatalog = Readonly<Record<number, OpenAiErrorDefaults>> & {
  readonly 400: OpenAiErrorDefaults;
  readonly 500: OpenAiErrorDefaults;
};

/** The catalog entry for a status, falling back to the 400 or 500 entry by class. */
export function errorDefaults(catalog: OpenAiErrorCatalog, status: number): OpenAiErrorDefaults {
  return catalog[status] ?? (status >= 500 ? catalog[500] : catalog[400]);
}

/**
 * The `error` object of OpenAI-shaped families: all four keys always present, the error's own
 * details winning over the catalog. `code` may be null unless `codeRequired` (DashScope always
 * sends one, so a null there falls back to the catalog's).
 */
export function openAiError(
  catalog: OpenAiErrorCatalog,
  err: SimError,
  codeRequired = false,
): Record<string, unknown> {
  const d = errorDefaults(catalog, err.status);
  const code =
    err.detail.code === undefined || (codeRequired && err.detail.code === null) ? d.code : err.detail.code;
  return { message: err.detail.message ?? d.message, type: d.type, param: err.detail.param ?? null, code };
}
