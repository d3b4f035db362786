/** Task upstreams (video) and task protocols: submit, poll, and the task as the store keeps it. */
export { defineTaskProtocol } from '../plugins/define-task-protocol';
export type { PollOutcome, PollPolicy, SubmitOutcome, TaskUpstream } from '../contracts/task-upstream';
export { pollOptions, pollPolicy } from '../upstream/poll-options';
export type { TaskParams, TaskUsage } from '../stores/video-task';
