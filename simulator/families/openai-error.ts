import { statusDefaults, type SimError, type StatusCatalog } from '../sim-error';

/** The defaults of one status in an OpenAI-shaped error catalog. */
export interface OpenAiErrorDefaults {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
}

/** Status → defaults; `400` and `500` must be present, as they cover unlisted statuses. */
export type OpenAiErrorCatalog = StatusCatalog<OpenAiErrorDefaults>;

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
  const d = statusDefaults(catalog, err.status);
  const code =
    err.detail.code === undefined || (codeRequired && err.detail.code === null) ? d.code : err.detail.code;
  return { message: err.detail.message ?? d.message, type: d.type, param: err.detail.param ?? null, code };
}
