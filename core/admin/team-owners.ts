/**
 * The team each kind of admin resource belongs to, for route-access.ts's checks of a team_admin's `:id`
 * calls. A task belongs to the team its key was in when it was submitted (the task records it), so a key
 * moved later does not carry its past tasks with it.
 */
import type { KeyService } from '../keys/key-service';
import type { TaskStore } from '../stores/task-store';
import type { TeamOwners } from './route-access';

export function teamOwners(keys: KeyService, tasks: TaskStore | undefined): TeamOwners {
  return {
    key: (id) => keys.findById(id),
    // A task of no team: only an admin or a viewer sees it.
    task: async (id) => {
      const task = await tasks?.get(id);
      return task && (task.team_id !== undefined ? { team_id: task.team_id } : {});
    },
    // A team is its own.
    team: (id) => Promise.resolve({ team_id: id }),
  };
}
