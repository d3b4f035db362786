/**
 * The rate-limit headers OpenAI sends with every call, which client libraries and agents read to pace
 * themselves: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`. Kept on the request's
 * `replyHeaders` as soon as the rate-limit stage decides, so they go out with whatever answer follows:
 * JSON, the first events of a stream, or the 429 itself. A kind of limit that does not apply to the call
 * gets no headers.
 */
import type { Quota, Standing } from './limiter';

const NAMES = {
  requests: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  tokens: ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
} as const;

/**
 * A duration as OpenAI writes it, which is Go's `time.Duration` format at millisecond precision: `0s`,
 * `20ms`, `1s`, `1.5s`, `6m0s`, `1h0m0s`.
 */
export function openAiDuration(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole === 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = String((whole % 60_000) / 1000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/**
 * The last text made for a number, kept: most calls repeat the one before (the same limit; a request
 * reset that is the whole window), so the common header costs no formatting and no new string.
 */
class LastText {
  private value = Number.NaN;
  private text = '';

  constructor(private readonly format: (value: number) => string) {}

  of(value: number): string {
    if (value !== this.value) {
      this.value = value;
      this.text = this.format(value);
    }
    return this.text;
  }
}

const TEXTS = {
  requests: { limit: new LastText(String), reset: new LastText(openAiDuration) },
  tokens: { limit: new LastText(String), reset: new LastText(openAiDuration) },
};

function addStanding(headers: Record<string, string>, kind: keyof typeof NAMES, standing: Standing): void {
  const [limit, remaining, reset] = NAMES[kind];
  headers[limit] = TEXTS[kind].limit.of(standing.limit);
  headers[remaining] = String(standing.remaining);
  headers[reset] = TEXTS[kind].reset.of(standing.resetMs);
}

/** The headers of a decision's standings, added to `into` (undefined when no limit of either kind applied). */
export function addQuotaHeaders(
  into: Record<string, string> | undefined,
  quota: Quota,
): Record<string, string> | undefined {
  if (!quota.requests && !quota.tokens) return into;
  const headers = into ?? {};
  if (quota.requests) addStanding(headers, 'requests', quota.requests);
  if (quota.tokens) addStanding(headers, 'tokens', quota.tokens);
  return headers;
}
