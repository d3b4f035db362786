/**
 * The plugin kit for `videoa` (DashScope's async video synthesis): every `task_status` the vendor sends
 * (PENDING, RUNNING, SUSPENDED, SUCCEEDED, FAILED, CANCELED, UNKNOWN), both usage forms of a success,
 * transient and other poll errors, and its refusals of a submit.
 */
import t from 'tap';
import { golden, recorded } from '../fake-upstream';
import { runVideoFamilyKit } from '../video-suite';

const PENDING = golden('videoa/poll-pending.json');
const SUCCEEDED = recorded('videoa/poll-succeeded.json');

void runVideoFamilyKit(t, {
  plugin: 'videoa',
  errorShape: () => ({ code: /^[A-Z]/, message: String, request_id: String }),
  submitted: recorded('videoa/submit.json'),
  body: (model) => ({
    model,
    input: { prompt: 'A lighthouse in a storm' },
    parameters: { resolution: '720P', duration: 5 },
  }),
  protocols: ['generic', 'native-a'],
  refusals: [
    golden('videoa/error-400.json', 400),
    recorded('videoa/submit-error-invalid-api-key.json', 401),
    golden('videoa/error-429.json', 429),
    golden('videoa/error-500.json', 500),
  ],
  tasks: [
    {
      name: 'every working status, then success',
      polls: [
        { answer: PENDING, status: 'queued' },
        { answer: golden('videoa/poll-running.json'), status: 'running' },
        // Paused by the vendor: still under way, not a failure.
        { answer: golden('videoa/poll-suspended.json'), status: 'running' },
        // A status never goes back.
        { answer: PENDING, status: 'running' },
        // Billed for what the vendor made (10 s at SR 720), not what was asked (5 s).
        { answer: SUCCEEDED, status: 'succeeded', billed: { video_seconds: 10, resolution: '720P' } },
      ],
    },
    {
      // SR as a string, as some models of the same API send it.
      name: 'success with the other usage form',
      polls: [
        {
          answer: recorded('videoa/poll-succeeded-sr-string.json'),
          status: 'succeeded',
          billed: { video_seconds: 5, resolution: '720P' },
        },
      ],
    },
    {
      // UNKNOWN (expired or never existed) and poll errors settle nothing before the deadline.
      name: 'UNKNOWN and poll errors, then failure',
      polls: [
        { answer: recorded('videoa/poll-unknown.json'), status: 'queued' },
        { answer: golden('videoa/error-500.json', 500), status: 'queued' },
        { answer: golden('videoa/error-429.json', 429), status: 'queued' },
        { answer: golden('videoa/error-400.json', 400), status: 'queued' },
        {
          answer: recorded('videoa/poll-failed.json'),
          status: 'failed',
          error: { code: 'InvalidParameter', message: 'The size is not match xxxxxx' },
        },
      ],
    },
    {
      // The vendor gives no code with CANCELED: the gateway names it.
      name: 'cancelled',
      polls: [
        { answer: PENDING, status: 'queued' },
        {
          answer: golden('videoa/poll-canceled.json'),
          status: 'cancelled',
          error: { code: 'task_cancelled', message: 'the upstream reports the task cancelled' },
        },
      ],
    },
  ],
});
