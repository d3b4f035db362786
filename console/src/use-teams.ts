/**
 * The teams the caller may see, for their names and for choosing one (a team_admin's listing holds its
 * own team only). A gateway without teams, or a failed read, leaves the list empty: the views then show
 * ids and offer "No team".
 */
import { useState } from 'preact/hooks';
import type { List, TeamWithActivity } from '../../core/admin/wire';
import { api } from './api';
import { ignore, useLoad } from './use-load';

export function useTeams(): readonly TeamWithActivity[] {
  const [teams, setTeams] = useState<readonly TeamWithActivity[]>([]);
  useLoad(
    () => api<List<TeamWithActivity>>('GET', '/admin/teams'),
    (list) => setTeams(list.data),
    ignore,
    [],
  );
  return teams;
}
