/**
 * How a model is reached on a client API: natively (the model's own API, or one its family also takes)
 * or through the translator registered for that pair of APIs. The route table asks which APIs to serve,
 * each endpoint which models it serves and how. No API or vendor is named here.
 */
import type { ApiTranslator } from '../contracts/translator';
import type { ModelApi, ModelSpec } from '../contracts/api';

/** `native`: the family's `prepare` takes the client's body as it is; else the translator to use. */
export type Reach = 'native' | ApiTranslator;

const pairKey = (from: string, to: string): string => `${from}\n${to}`;

export class ApiServing {
  private readonly translators = new Map<string, ApiTranslator>();

  constructor(translators: Iterable<ApiTranslator>) {
    for (const translator of translators) {
      const key = pairKey(translator.from.id, translator.to.id);
      if (this.translators.has(key)) {
        throw new Error(`two API translators from ${translator.from.id} to ${translator.to.id}`);
      }
      this.translators.set(key, translator);
    }
  }

  /** How `model` is reached on `api`, or undefined when it is not served there. */
  reach(api: ModelApi, model: ModelSpec): Reach | undefined {
    if (model.api.id === api.id || model.alsoServes?.some((a) => a.id === api.id)) return 'native';
    return this.translators.get(pairKey(api.id, model.api.id));
  }

  /** Every request/response API the models are served on: their own, those their families also take, translated ones. */
  apis(models: Iterable<ModelSpec>): ModelApi[] {
    const apis = new Map<string, ModelApi>();
    for (const model of models) {
      if (model.api.kind === 'task') continue;
      for (const api of [model.api, ...(model.alsoServes ?? [])]) apis.set(api.id, api);
    }
    for (const translator of this.translators.values()) {
      if (apis.has(translator.to.id) && !apis.has(translator.from.id))
        apis.set(translator.from.id, translator.from);
    }
    return [...apis.values()];
  }
}
