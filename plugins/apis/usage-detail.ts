import { isJsonObject } from '../../core/kit/json';

/**
 * A count from an optional details object of an OpenAI-shaped `usage` (`prompt_tokens_details`,
 * `output_tokens_details`, …), when it is a positive number.
 */
export function usageDetail(details: unknown, key: string): number | undefined {
  const value = isJsonObject(details) ? details[key] : undefined;
  return typeof value === 'number' && value > 0 ? value : undefined;
}
