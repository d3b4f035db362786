/**
 * `DELETE /admin/cache`: removes every entry, or those stored by a key (`?key_id=`), by a team's keys
 * (`?team_id=`) or for a model (`?model=`); filters given together must all match. Answers
 * `{"deleted": n}`, and is audited as `cache.clear`.
 */
import { Errors } from '../../../core/kit/plugin';
import type { PluginAdminRoute } from '../../../core/kit/tokens';
import type { ClearFilter } from './entry';
import type { CurrentStore } from './cache-metrics';

const FILTERS = ['key_id', 'team_id', 'model'] as const;

function filterOf(search: URLSearchParams): ClearFilter {
  const filter: Record<string, string> = {};
  for (const [name, value] of search) {
    // A filter this route does not apply must not pass for applied: it would empty the whole cache.
    if (!(FILTERS as readonly string[]).includes(name))
      throw Errors.invalidRequest(`unknown query parameter '${name}'; the filters are ${FILTERS.join(', ')}`);
    if (value === '') throw Errors.invalidRequest(`query parameter '${name}' must not be empty`);
    filter[name] = value;
  }
  return filter;
}

export const clearRoute = (current: CurrentStore): PluginAdminRoute => ({
  method: 'DELETE',
  path: '/admin/cache',
  audit: { action: 'cache.clear', target: 'cache' },
  handle: async ({ search, audit }) => {
    const filter = filterOf(search);
    const deleted = current.store ? await current.store.clear(filter) : 0;
    const which = FILTERS.filter((name) => filter[name] !== undefined).map(
      (name) => `${name}=${filter[name]}`,
    );
    audit.changed(
      { kind: 'cache', id: which.length > 0 ? which.join('&') : 'all' },
      { deleted: { before: null, after: deleted } },
    );
    return { deleted };
  },
});
