/** `GET /v1/models` in OpenAI's list shape, limited to the models the calling key (and its team) may use. */
import type { Catalogue } from '../routing/catalogue';
import type { Endpoint } from '../request/served-request';
import { replyJson } from './json-reply';

export function modelsEndpoint(catalogue: Catalogue): Endpoint {
  return {
    id: 'models',
    method: 'GET',
    path: '/v1/models',
    routedByModel: false,
    handle(ctx) {
      // An empty list allows every model; both the key's and the team's must allow it.
      const lists = [ctx.key?.allowed_models ?? [], ctx.team?.allowed_models ?? []];
      const data = catalogue
        .models()
        .filter((m) => lists.every((allowed) => allowed.length === 0 || allowed.includes(m.id)))
        .map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.ownedBy }));
      replyJson(ctx, 200, { object: 'list', data });
      return Promise.resolve();
    },
  };
}
