/**
 * The team each kind of admin resource belongs to, for route-access.ts's checks of a team_admin's `:id`
 * calls. A task is its key's: the task record names its key, and a key its team.
 */
import type { KeyService } from '../keys/key-service';
import type { TaskStore } from '../stores/task-store';
import type { TeamOwners } from './route-access';

export function teamOwners(keys: KeyService, tasks: TaskStore | undefined): TeamOwners {
  return {
    key: (id) => keys.findById(id),
    task: async (id) => {
      const task = await tasks?.get(id);
      if (!task) return undefined;
      // A task whose key is gone belongs to no team: only an admin or a viewer sees it.
      return (task.key_id !== null ? await keys.findById(task.key_id) : undefined) ?? {};
    },
    // A team is its own.
    team: (id) => Promise.resolve({ team_id: id }),
  };
}
