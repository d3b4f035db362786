/**
 * The pipeline's order rules, as each stage's manifest states them (define-plugin.ts): a stage listed
 * before one it must follow, or without one it requires, stops start-up (and a reload) naming the entry,
 * so a pipeline such as `[model-router, auth]` cannot run and skip the key's allowed models.
 */
import { ConfigError } from '../../config/errors';
import type { StageOrder } from './define-plugin';

export interface OrderedStage {
  readonly name: string;
  readonly order: StageOrder;
}

export function checkStageOrder(stages: readonly OrderedStage[]): void {
  const position = new Map(stages.map(({ name }, i) => [name, i]));
  stages.forEach(({ name, order }, i) => {
    const path = `pipeline[${i}]`;
    for (const [before, why] of Object.entries(order.requires)) {
      if (!position.has(before)) {
        throw new ConfigError(
          path,
          `${name} needs ${before} before it (${why}); add ${before} to the pipeline`,
        );
      }
    }
    for (const [before, why] of Object.entries({ ...order.after, ...order.requires })) {
      const at = position.get(before);
      if (at !== undefined && at > i) {
        throw new ConfigError(path, `${name} must come after ${before} (${why}), which is pipeline[${at}]`);
      }
    }
  });
}
