/**
 * Prices from gateway.yaml's `prices:`: per second of video (flat, or by resolution) or per million
 * upstream tokens. A model may be named exactly or by a `*` pattern; the exact name wins.
 */
import type { PriceConfig } from '../../config/schema';
import { globMatch } from '../routing/glob';
import type { TaskParams, TaskUsage } from './task';

/** Money is kept to a millionth of the unit, so sums of many small prices stay exact enough. */
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

export class Pricing {
  constructor(private readonly prices: Readonly<Record<string, PriceConfig>>) {}

  /** The price of a finished task; undefined when gateway.yaml prices neither what it produced nor its model. */
  cost(model: string, params: TaskParams, usage: TaskUsage): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const perSecond = this.perSecond(price, params.resolution);
    if (perSecond !== undefined && usage.video_seconds !== undefined)
      return round(perSecond * usage.video_seconds);
    if (price.per_million_tokens !== undefined && usage.tokens !== undefined) {
      return round((price.per_million_tokens * usage.tokens) / 1e6);
    }
    return undefined;
  }

  private priceOf(model: string): PriceConfig | undefined {
    return this.prices[model] ?? Object.entries(this.prices).find(([p]) => globMatch(p, model))?.[1];
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
