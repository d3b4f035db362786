/**
 * Prices from gateway.yaml's `prices:`, and what a call or a task costs by them. Text is priced per
 * million tokens, each kind at the vendor's own rate (uncached input, cache reads, cache writes, output
 * with reasoning), images per image (flat, or by size and quality), video per second (flat, or by
 * resolution) or per million upstream tokens. A model may be named exactly or by a `*` pattern; the
 * exact name wins.
 */
import type { PerImagePrice, PriceConfig } from '../../config/schema';
import { PatternTable } from '../base/pattern-table';
import type { TaskParams, TaskUsage } from '../stores/video-task';
import type { Usage } from '../contracts/usage';
import { token } from '../base/token';

/**
 * Money is counted in integer micro-units (millionths of the currency unit): sums of any number of
 * records stay exact. A price per million tokens is a price in micro-units per token, so a kind of
 * token costs `round(tokens × price)` micro-units; prices are taken to 6 decimals (PRICE_SCALE), which
 * makes the product an integer and the rounding exact. Each kind is rounded on its own (halves up), then
 * the integers are summed.
 */
const PRICE_SCALE = 1_000_000;

/** round(a × b / d) for non-negative integers, halves up; exact (BigInt past 2^53). */
function mulRoundDiv(a: number, b: number, d: number): number {
  const product = a * b;
  if (!Number.isSafeInteger(product)) {
    const big = BigInt(a) * BigInt(b);
    const q = big / BigInt(d);
    return Number(2n * (big - q * BigInt(d)) >= BigInt(d) ? q + 1n : q);
  }
  const q = Math.floor(product / d);
  const r = product - q * d; // the float quotient may be one off: correct it from the exact remainder
  if (r < 0) return 2 * (r + d) >= d ? q : q - 1;
  if (r >= d) return 2 * (r - d) >= d ? q + 2 : q + 1;
  return 2 * r >= d ? q + 1 : q;
}

/** Micro-units for `count` whole tokens (or images) at `rate` micro-units each. */
const microsFor = (count: number, rate: number): number =>
  count <= 0 || rate <= 0 ? 0 : mulRoundDiv(Math.round(count), Math.round(rate * PRICE_SCALE), PRICE_SCALE);

/** Micro-units for a possibly fractional amount (video seconds) at a price in currency units, taken to a micro-unit. */
const microsOfUnits = (amount: number, unitPrice: number): number =>
  Math.round(amount * Math.round(unitPrice * 1e6));

/** The entry for `key` (keys compared without case), else the `*` entry, else undefined. */
function entryOf<V>(table: Readonly<Record<string, V>>, key: string | undefined): V | undefined {
  const wanted = key?.toLowerCase();
  let fallback: V | undefined;
  for (const [k, v] of Object.entries(table)) {
    if (k.toLowerCase() === wanted) return v;
    if (k === '*') fallback = v;
  }
  return fallback;
}

/** The price of one image of `size` and `quality`: flat, or the table's entry by size, then by quality. */
function perImageRate(price: PerImagePrice, size?: string, quality?: string): number | undefined {
  if (typeof price === 'number') return price;
  const bySize = entryOf(price, size);
  return typeof bySize === 'object' ? entryOf(bySize, quality) : bySize;
}

/** The text rates a batch line is priced at: the `batch` entry's own, else the normal ones discounted. */
function batchRates(price: PriceConfig): PriceConfig {
  const batch = price.batch;
  if (!batch) return price;
  const off = (normal: number | undefined): number | undefined =>
    normal === undefined ? undefined : normal * (1 - (batch.discount ?? 0));
  const input = batch.input_per_mtok ?? off(price.input_per_mtok);
  return {
    ...price,
    input_per_mtok: input,
    cached_input_per_mtok: batch.cached_input_per_mtok ?? off(price.cached_input_per_mtok),
    cache_write_per_mtok: batch.cache_write_per_mtok ?? off(price.cache_write_per_mtok),
    output_per_mtok: batch.output_per_mtok ?? off(price.output_per_mtok),
  };
}

export class Pricing {
  /** Each model's price, found once: every metered call asks. */
  private readonly byModel = new Map<string, PriceConfig | undefined>();
  private readonly table: PatternTable<PriceConfig>;

  constructor(prices: Readonly<Record<string, PriceConfig>>) {
    this.table = new PatternTable(prices);
  }

  /**
   * What a text or image call cost, in micro-units; null when gateway.yaml prices nothing it used (unknown, never 0). Cache reads and
   * writes are billed at their own rates where given, else as input; output includes reasoning tokens
   * (usage.ts: every vendor bills thinking as output). Images of a size and quality the `per_image` table
   * has no entry for make the cost null too.
   */
  callCost(model: string, usage: Usage): number | null {
    return this.costAt(this.priceOf(model), usage);
  }

  /**
   * What a line of a vendor's own batch cost: at the model's `batch` price (its own rates, else the
   * normal rates less its `discount`); at the normal price when the model has no `batch` entry.
   */
  batchCost(model: string, usage: Usage): number | null {
    const price = this.priceOf(model);
    return this.costAt(price && batchRates(price), usage);
  }

  private costAt(price: PriceConfig | undefined, usage: Usage): number | null {
    if (!price) return null;
    const { input_per_mtok: input, output_per_mtok: output, per_image: perImage } = price;
    if (input === undefined && output === undefined && perImage === undefined) return null;
    const cacheRead = usage.cacheReadTokens ?? 0;
    const cacheWrite = usage.cacheWriteTokens ?? 0;
    const uncached = Math.max(0, usage.promptTokens - cacheRead - cacheWrite);
    const inputRate = input ?? 0;
    const images = usage.images ?? 0;
    const imageRate =
      perImage === undefined ? 0 : perImageRate(perImage, usage.imageSize, usage.imageQuality);
    if (imageRate === undefined && images > 0) return null;
    return (
      microsFor(uncached, inputRate) +
      microsFor(cacheRead, price.cached_input_per_mtok ?? inputRate) +
      microsFor(cacheWrite, price.cache_write_per_mtok ?? inputRate) +
      microsFor(usage.completionTokens, output ?? 0) +
      microsFor(images, (imageRate ?? 0) * 1e6)
    );
  }

  /**
   * The price of a finished task in micro-units; null when gateway.yaml prices neither what it produced
   * nor its model. Seconds may be fractional: seconds × price per second, rounded once to a micro-unit.
   */
  taskCost(model: string, params: TaskParams, usage: TaskUsage): number | null {
    const price = this.priceOf(model);
    if (!price) return null;
    const perSecond = this.perSecond(price, usage.resolution ?? params.resolution);
    if (perSecond !== undefined && usage.video_seconds !== undefined)
      return microsOfUnits(usage.video_seconds, perSecond);
    if (price.per_million_tokens !== undefined && usage.tokens !== undefined) {
      return microsFor(usage.tokens, price.per_million_tokens);
    }
    return null;
  }

  /** True when gateway.yaml has a price for `model` (exactly or by pattern). */
  has(model: string): boolean {
    return this.priceOf(model) !== undefined;
  }

  private priceOf(model: string): PriceConfig | undefined {
    if (this.byModel.has(model)) return this.byModel.get(model);
    const price = this.table.get(model);
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

export const PricingToken = token<Pricing>('Pricing');
