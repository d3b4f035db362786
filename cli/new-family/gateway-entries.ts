/**
 * The family's entries in gateway.yaml (and the same in deploy/gateway.yaml, which must match it outside
 * `storage:`): its upstream at the bundled simulator unless its variables say otherwise, a route for its
 * first model, and placeholder prices.
 */
import { type FamilyNames, simulatorBaseUrl } from './names';
import type { YamlEntry } from './yaml-edits';

export function gatewayEntries(n: FamilyNames): YamlEntry[] {
  const [model] = n.models;
  return [
    {
      section: 'upstreams',
      key: n.upstream,
      value: {
        plugin: n.name,
        base_url: simulatorBaseUrl(n),
        api_key: `\${${n.env}_API_KEY:-${n.simKey}}`,
      },
    },
    {
      section: 'routes',
      key: model,
      comment: `${model} on ${n.upstream}; where the vendor names the model otherwise, add its id as model:`,
      value: { targets: [{ upstream: n.upstream }] },
      flowAt: [['targets', 0]],
    },
    {
      section: 'prices',
      key: n.pricePattern,
      comment: `Placeholder figures: set ${n.name}'s prices from the vendor's price list (per million tokens).`,
      value: { input_per_mtok: 1, output_per_mtok: 2 },
      flowAt: [[]],
    },
  ];
}
