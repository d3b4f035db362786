/**
 * Who runs a batch: the vendor, in its own batch API, when the upstream its first line routes to offers
 * one for the batch's API (a line there costs the vendor's batch price); else the gateway itself. A
 * vendor's batch goes to one upstream, so every line must be served there, and by one model where the
 * vendor allows no other (a 400 names the first line that is not).
 */
import type { RouteTarget } from '../../../core/kit/stage';
import type { Catalogue } from '../../../core/kit/tokens';
import { BatchErrors } from './batch-errors';
import type { BatchMode } from './batch-work';
import type { InputLine } from './input-lines';

export function batchMode(
  first: RouteTarget,
  endpoint: string,
  lines: readonly InputLine[],
  catalogue: Catalogue,
  where: (n: number) => string,
): BatchMode {
  const vendor = first.upstream.plugin.batches;
  if (!vendor?.endpoints.includes(endpoint)) return 'gateway';
  const upstream = first.upstream.name;
  lines.forEach((line, i) => {
    if (vendor.oneModel && line.model !== first.spec.id)
      throw BatchErrors.badLine(
        where(i + 1),
        `model '${line.model}' differs from the first line's '${first.spec.id}': ${upstream} runs one model per batch`,
      );
    if (!catalogue.targetOn(line.model, upstream))
      throw BatchErrors.badLine(
        where(i + 1),
        `model '${line.model}' is not served by ${upstream}, which runs this batch`,
      );
  });
  return 'native';
}
