/** Task upstreams (video) and task protocols: submit, poll, and the task as the store keeps it. */
export { defineTaskProtocol } from '../plugins/define-task-protocol';
export type { PollOutcome, PollPolicy, SubmitOutcome, TaskUpstream } from '../contracts/task-upstream';
export { pollOptions, pollPolicy } from '../upstream/poll-options';
export type { TaskParams, TaskUsage } from '../stores/video-task';
export type { TaskStep, TaskWorker } from '../contracts/task-worker';
export { TaskStoreToken, type TaskPageQuery, type TaskStore } from '../stores/task-store';
export {
  isTerminal,
  handedBack,
  newTaskState,
  type TaskChange,
  type TaskStatus,
  type VideoTask,
} from '../stores/video-task';
