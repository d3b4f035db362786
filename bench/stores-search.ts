/**
 * Finding one key among many through the admin API, as the console and an operator do: by its
 * description (`q`), a team's keys (`team_id`), and the page after a cursor in the middle of the ids.
 * Each is checked for what it must answer, then timed.
 */
import type { KeyWithActivity, Page } from '../core/admin/wire';
import { adminJson, type AdminApi } from './admin-call';
import type { MadeKey } from './stores-keys';
import { median } from './summary';

/** Each query is timed this many times; the median is reported. */
const RUNS = 5;
const PAGE = 100;

/** The median ms of each query. */
export interface SearchFigures {
  /** `?q=<one key's description>`: that key alone. */
  readonly byDescriptionMs: number;
  /** `?team_id=<a team>&limit=100`: a page of that team's keys. */
  readonly byTeamMs: number;
  /** `?limit=100&cursor=<the middle id>`: the page after it. */
  readonly afterCursorMs: number;
}

type KeyPage = Page<KeyWithActivity>;

/** Times `path` RUNS times, checking each answer with `check` (which throws on a wrong one). */
async function timed(api: AdminApi, path: string, check: (page: KeyPage) => void): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const page = await adminJson<KeyPage>(api, 'GET', path);
    ms.push(performance.now() - started);
    check(page);
  }
  return median(ms);
}

function expect(ok: boolean, path: string, what: string): void {
  if (!ok) throw new Error(`GET ${path} answered wrongly: ${what}`);
}

/** `q`, `team_id` and `cursor`, aimed at `key` (a key in the middle of those made) and at `ids`' middle. */
export async function searchKeys(
  api: AdminApi,
  key: MadeKey,
  ids: readonly string[],
): Promise<SearchFigures> {
  const q = `/admin/keys?q=${encodeURIComponent(key.description)}`;
  const team = `/admin/keys?team_id=${encodeURIComponent(key.teamId)}&limit=${PAGE}`;
  const middle = [...ids].sort()[Math.floor(ids.length / 2)]!;
  const cursor = `/admin/keys?limit=${PAGE}&cursor=${encodeURIComponent(middle)}`;
  return {
    byDescriptionMs: await timed(api, q, (page) =>
      expect(page.data.length === 1 && page.data[0]?.id === key.id, q, `not ${key.id} alone`),
    ),
    byTeamMs: await timed(api, team, (page) =>
      expect(
        page.data.length > 0 && page.data.every((k) => k.team_id === key.teamId),
        team,
        `not a page of team ${key.teamId}'s keys`,
      ),
    ),
    afterCursorMs: await timed(api, cursor, (page) =>
      expect(
        page.data.length > 0 && page.data.every((k) => k.id > middle),
        cursor,
        `not a page of ids after ${middle}`,
      ),
    ),
  };
}
