/** Costs in integer micro-units: each kind of token rounded on its own (halves up), then summed. */
import t from 'tap';
import { Pricing } from '../../../core/billing/pricing';
import { capturingLogger } from '../../helpers/stores';
import { startTestGateway } from '../../helpers/gateway';

const usage = (promptTokens: number, completionTokens: number, more = {}) => ({
  promptTokens,
  completionTokens,
  estimated: false,
  ...more,
});

t.test('callCost: integer micro-units, rounded per kind, null without a price', (t) => {
  const pricing = new Pricing({
    'chat-*': { input_per_mtok: 1.25, cached_input_per_mtok: 0.1, output_per_mtok: 10 },
    'tiny-1': { input_per_mtok: 0.1, output_per_mtok: 0.3 },
    'img-1': { per_image: 0.039 },
    'video-1': { per_second: 0.1 },
  });
  t.equal(
    pricing.callCost('chat-a', usage(1000, 100)),
    1250 + 1000,
    '1.25 per million is 1.25 micro-units a token',
  );
  t.equal(pricing.callCost('chat-a', usage(2, 0)), 3, '2.5 rounds half up to 3');
  t.equal(pricing.callCost('chat-a', usage(1, 0)), 1, '1.25 rounds to 1');
  t.equal(
    pricing.callCost('chat-a', usage(10, 0, { cacheReadTokens: 5 })),
    Math.round(5 * 1.25) + 1,
    'uncached 6.25 → 6 and cache reads 0.5 → 1, rounded apart',
  );
  t.equal(pricing.callCost('tiny-1', usage(3, 1)), 0, '0.3 and 0.3 micro-units round to nothing');
  t.equal(pricing.callCost('tiny-1', usage(5, 5)), 1 + 2, '0.5 → 1 and 1.5 → 2: decimals exact, not 0.49999');
  t.equal(
    pricing.callCost('chat-a', usage(9_000_000_000, 0)),
    11_250_000_000,
    'past 2^53 in the scaled product: still exact',
  );
  t.equal(pricing.callCost('chat-a', usage(0, 0)), 0, 'a priced call of no tokens costs 0');
  t.equal(pricing.callCost('img-1', usage(0, 0, { images: 3 })), 117_000, 'per image');
  t.equal(pricing.callCost('unknown', usage(10, 10)), null, 'no price: unknown, never 0');
  t.equal(pricing.callCost('video-1', usage(10, 10)), null, 'a price with nothing for text: unknown');
  t.ok(Number.isInteger(pricing.callCost('chat-x', usage(12_345, 6_789))), 'always an integer');
  t.end();
});

t.test('callCost: per image by size, then quality, with * fallbacks at both levels', (t) => {
  const pricing = new Pricing({
    'gpt-image-x': {
      per_image: {
        '1024x1024': { low: 0.011, medium: 0.042, high: 0.167, '*': 0.042 },
        '1536X1024': { LOW: 0.016, '*': 0.063 },
        '1024x1536': 0.05,
        '*': 0.042,
      },
    },
    'no-fallback': { per_image: { '1024x1024': { high: 0.167 } }, input_per_mtok: 5 },
  });
  const cost = (model: string, images: number, imageSize?: string, imageQuality?: string) =>
    pricing.callCost(model, usage(0, 0, { images, imageSize, imageQuality }));
  const cases: [string, number, string | undefined, string | undefined, number | null, string][] = [
    ['gpt-image-x', 2, '1024x1024', 'high', 334_000, 'size and quality listed: exact micro-units for n'],
    ['gpt-image-x', 3, '1024x1024', 'low', 33_000, 'a third, exact'],
    ['gpt-image-x', 1, '1024x1024', 'hd', 42_000, "a quality not listed: the size's *"],
    ['gpt-image-x', 1, '1024x1024', undefined, 42_000, "no quality given: the size's *"],
    ['gpt-image-x', 1, '1536x1024', 'low', 16_000, 'keys compared without case'],
    ['gpt-image-x', 1, '1536x1024', 'Low', 16_000, 'and request values too'],
    ['gpt-image-x', 1, '1024X1536', 'high', 50_000, 'a size with one price for every quality'],
    ['gpt-image-x', 4, '256x256', 'high', 168_000, 'a size not listed: the top *'],
    ['gpt-image-x', 1, undefined, undefined, 42_000, 'no size given: the top *'],
    ['no-fallback', 1, '1024x1024', 'high', 167_000, 'listed'],
    ['no-fallback', 1, '1024x1024', 'low', null, 'a quality without an entry or *: unknown, never 0'],
    ['no-fallback', 1, '512x512', 'high', null, 'a size without an entry or *: unknown'],
    ['no-fallback', 1, undefined, undefined, null, 'none given and no *: unknown'],
    ['no-fallback', 0, '512x512', 'high', 0, 'no images made: nothing unpriced was used'],
  ];
  for (const [model, n, size, quality, expected, why] of cases)
    t.equal(cost(model, n, size, quality), expected, why);
  t.equal(
    pricing.callCost('no-fallback', usage(1000, 0, { images: 1, imageSize: '512x512' })),
    null,
    'tokens priced but the image not: still unknown',
  );
  t.end();
});

t.test('taskCost: micro-units per second or per million tokens, null without a price', (t) => {
  const pricing = new Pricing({
    'va-*': { per_second: { '720P': 0.1, '1080P': 0.15 } },
    'vb-1': { per_million_tokens: 10 },
  });
  t.equal(pricing.taskCost('va-1', { resolution: '720p' }, { video_seconds: 5 }), 500_000);
  t.equal(pricing.taskCost('va-1', {}, { video_seconds: 3, resolution: '1080P' }), 450_000);
  t.equal(
    pricing.taskCost('va-1', {}, { video_seconds: 2.5, resolution: '1080P' }),
    375_000,
    'fractional seconds',
  );
  t.equal(pricing.taskCost('vb-1', {}, { tokens: 108_000 }), 1_080_000);
  t.equal(
    pricing.taskCost('va-1', {}, { video_seconds: 5, resolution: '4K' }),
    null,
    'an unpriced resolution',
  );
  t.equal(pricing.taskCost('other', {}, { video_seconds: 5 }), null);
  t.end();
});

t.test('start-up warns once, listing the served models that have no price', async (t) => {
  const { logger, lines } = capturingLogger();
  await startTestGateway(t, () => undefined, { logger });
  const warnings = lines.filter((l) => /without a price/.test(String(l.msg)));
  t.equal(warnings.length, 1, 'one warning');
  const models = warnings[0]?.models as string[];
  t.ok(models.includes('modela-5.5'), 'a chat model the test config does not price');
  t.notOk(models.includes('videoa-1.1-t2v'), 'a priced model is not listed');
  t.notOk(models.includes('videob-2-0-260128'), 'nor one priced exactly');
});

t.test('batchCost: the batch entry, as a discount or rates of its own; the normal price without one', (t) => {
  const pricing = new Pricing({
    'half-*': { input_per_mtok: 1.25, output_per_mtok: 10, batch: { discount: 0.5 } },
    'own-1': {
      input_per_mtok: 3,
      cached_input_per_mtok: 0.3,
      output_per_mtok: 15,
      batch: { output_per_mtok: 6 },
    },
    'plain-1': { input_per_mtok: 1, output_per_mtok: 2 },
  });
  t.equal(pricing.batchCost('half-a', usage(1000, 100)), 625 + 500, 'half of each rate');
  t.equal(pricing.callCost('half-a', usage(1000, 100)), 1250 + 1000, 'a call alone pays the full price');
  t.equal(
    pricing.batchCost('own-1', usage(1000, 100, { cacheReadTokens: 200 })),
    800 * 3 + 200 * 0.3 + 100 * 6,
    "the entry's own output rate; input and cache reads at the normal rates (no discount given)",
  );
  t.equal(pricing.batchCost('plain-1', usage(1000, 100)), 1000 + 200, 'no batch entry: the normal price');
  t.equal(pricing.batchCost('nope', usage(1, 1)), null, 'no price: unknown');
  t.end();
});
