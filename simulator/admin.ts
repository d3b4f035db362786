import type { RequestLog } from './request-log';

/** An inspection endpoint: the query string in, the JSON answer out. */
type AdminHandler = (log: RequestLog, query: URLSearchParams) => unknown;

/** Routes under `/_sim/`, keyed `METHOD /path`. These requests are not logged themselves. */
export const adminRoutes: Readonly<Record<string, AdminHandler>> = {
  'GET /_sim/health': () => ({ ok: true }),
  'GET /_sim/requests': (log, query) => ({ requests: log.list(query.get('request_id')) }),
  'DELETE /_sim/requests': (log) => ({ ok: true, cleared: log.clear() }),
};
