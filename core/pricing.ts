/**
 * Prices from gateway.yaml's `prices:`, and what a call or a task costs by them. Text is priced per
 * million tokens, each kind at the vendor's own rate (uncached input, cache reads, cache writes, output
 * with reasoning), images per image, video per second (flat, or by resolution) or per million upstream
 * tokens. A model may be named exactly or by a `*` pattern; the exact name wins.
 */
import type { PriceConfig } from '../config/schema';
import { globMatch } from './routing/glob';
import type { TaskParams, TaskUsage } from './tasks/task';
import type { Usage } from './usage';

/** Money is kept to a millionth of the unit, so sums of many small prices stay exact enough. */
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

const perMillion = (tokens: number, rate: number): number => (tokens * rate) / 1e6;

export class Pricing {
  /** Each model's price, found once: every metered call asks, and patterns compile to regexes. */
  private readonly byModel = new Map<string, PriceConfig | undefined>();

  constructor(private readonly prices: Readonly<Record<string, PriceConfig>>) {}

  /**
   * What a text or image call cost; undefined when gateway.yaml prices nothing it used. Cache reads and
   * writes are billed at their own rates where given, else as input; output includes reasoning tokens
   * (usage.ts: every vendor bills thinking as output).
   */
  callCost(model: string, usage: Usage): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const { input_per_mtok: input, output_per_mtok: output, per_image: perImage } = price;
    if (input === undefined && output === undefined && perImage === undefined) return undefined;
    const cacheRead = usage.cacheReadTokens ?? 0;
    const cacheWrite = usage.cacheWriteTokens ?? 0;
    const uncached = Math.max(0, usage.promptTokens - cacheRead - cacheWrite);
    const inputRate = input ?? 0;
    return round(
      perMillion(uncached, inputRate) +
        perMillion(cacheRead, price.cached_input_per_mtok ?? inputRate) +
        perMillion(cacheWrite, price.cache_write_per_mtok ?? inputRate) +
        perMillion(usage.completionTokens, output ?? 0) +
        (usage.images ?? 0) * (perImage ?? 0),
    );
  }

  /** The price of a finished task; undefined when gateway.yaml prices neither what it produced nor its model. */
  taskCost(model: string, params: TaskParams, usage: TaskUsage): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const perSecond = this.perSecond(price, usage.resolution ?? params.resolution);
    if (perSecond !== undefined && usage.video_seconds !== undefined)
      return round(perSecond * usage.video_seconds);
    if (price.per_million_tokens !== undefined && usage.tokens !== undefined) {
      return round(perMillion(usage.tokens, price.per_million_tokens));
    }
    return undefined;
  }

  private priceOf(model: string): PriceConfig | undefined {
    if (this.byModel.has(model)) return this.byModel.get(model);
    const price = this.prices[model] ?? Object.entries(this.prices).find(([p]) => globMatch(p, model))?.[1];
    this.byModel.set(model, price);
    return price;
  }

  /** The rate per second for `resolution`: a flat rate, or the table's entry (resolution names compared without case). */
  private perSecond(price: PriceConfig, resolution: string | undefined): number | undefined {
    const rate = price.per_second;
    if (typeof rate === 'number' || rate === undefined) return rate;
    if (resolution === undefined) return undefined;
    const wanted = resolution.toLowerCase();
    return Object.entries(rate).find(([r]) => r.toLowerCase() === wanted)?.[1];
  }
}
