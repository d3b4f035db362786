/**
 * The query of `GET /admin/usage/summary?group_by=key,team,model,endpoint,hour&from=&to=&key_id=&team_id=&model=&endpoint=`,
 * checked into a UsageSummaryQuery: totals per group (UsageStore.summary); key_id, team_id, model and
 * endpoint filter, comma-separated.
 */
import { Errors } from '../base/errors';
import { HOUR_MS } from '../stores/usage-rollup';
import type { SummaryDimension, UsageSummaryQuery } from '../stores/usage-store';

const DIMENSIONS: readonly string[] = [
  'key',
  'team',
  'model',
  'endpoint',
  'hour',
  'day',
] satisfies SummaryDimension[];
const SUMMARY_PARAMS = new Set(['group_by', 'from', 'to', 'key_id', 'team_id', 'model', 'endpoint']);
/** At most this many values in one filter: a filter is typed or picked by an operator, not a dump. */
const MAX_FILTER_VALUES = 100;
/** A UTC or offset date-time; the summary's bounds must fall on the hour. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `group_by` (non-empty, of key, team, model, endpoint and at most one of hour and day), `from` and `to` (on the hour). */
export function summaryQuery(params: URLSearchParams): UsageSummaryQuery {
  for (const name of params.keys()) {
    if (!SUMMARY_PARAMS.has(name)) {
      throw Errors.invalidRequest(
        `unknown query parameter '${name.slice(0, 200)}': expected group_by, from, to, key_id, team_id, model, endpoint`,
      );
    }
    if (params.getAll(name).length > 1) throw Errors.invalidQuery(name, 'given once');
  }
  const groupBy = (params.get('group_by') ?? '').split(',').filter(Boolean);
  if (groupBy.length === 0) {
    throw Errors.invalidRequest(
      "query parameter 'group_by' is required: any of key, team, model, endpoint, and hour or day",
    );
  }
  for (const d of groupBy) {
    if (!DIMENSIONS.includes(d)) {
      throw Errors.invalidRequest(
        `'group_by' cannot include '${d.slice(0, 200)}': expected key, team, model, endpoint, hour or day`,
      );
    }
  }
  if (new Set(groupBy).size !== groupBy.length) throw Errors.invalidRequest("'group_by' names a field twice");
  if (groupBy.includes('hour') && groupBy.includes('day')) {
    throw Errors.invalidRequest("'group_by' takes at most one of hour and day");
  }
  const bound = (name: 'from' | 'to'): number | undefined => {
    const text = params.get(name);
    if (text === null) return undefined;
    const at = ISO_TIME.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at) || at % HOUR_MS !== 0) {
      throw Errors.invalidRequest(
        `query parameter '${name}' must be an ISO 8601 time on the hour, such as 2026-01-01T00:00:00Z`,
      );
    }
    return at;
  };
  const from = bound('from');
  const to = bound('to');
  if (from !== undefined && to !== undefined && from >= to) {
    throw Errors.invalidRequest("query parameter 'from' must be before 'to'");
  }
  return {
    group_by: groupBy as SummaryDimension[],
    from,
    to,
    key_ids: filterValues(params, 'key_id'),
    team_ids: filterValues(params, 'team_id'),
    models: filterValues(params, 'model'),
    endpoints: filterValues(params, 'endpoint'),
  };
}

/**
 * `key_id=a,b`: the listed values, or undefined when the parameter is absent. Values are not checked
 * against the models and endpoints served now: records keep those of plugins since removed.
 */
function filterValues(
  params: URLSearchParams,
  name: 'key_id' | 'team_id' | 'model' | 'endpoint',
): string[] | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  const values = text.split(',');
  if (values.some((v) => v.length === 0 || v.length > 200) || values.length > MAX_FILTER_VALUES) {
    throw Errors.invalidQuery(name, `a comma-separated list of 1 to ${MAX_FILTER_VALUES} names`);
  }
  return values;
}
