/**
 * The plugin kit for `videob` (Ark's content-generation tasks): every `status` the vendor sends (queued,
 * running, succeeded, failed, cancelled, expired), a failure with the vendor's error, poll errors, and
 * its refusals of a submit. Billing is in the vendor's tokens.
 */
import t from 'tap';
import { golden, recorded } from '../fake-upstream';
import { runVideoFamilyKit } from '../video-suite';

const QUEUED = golden('videob/poll-queued.json');
const RUNNING = golden('videob/poll-running.json');

void runVideoFamilyKit(t, {
  plugin: 'videob',
  errorShape: () => ({ error: { code: /^[A-Z]/, message: /Request id: \S+$/, type: /^[A-Z]/ } }),
  submitted: recorded('videob/create.json'),
  body: (model) => ({
    model,
    content: [{ type: 'text', text: 'A lighthouse in a storm --resolution 720p --duration 5' }],
  }),
  protocols: ['generic', 'native-b'],
  refusals: [
    golden('videob/error-400.json', 400),
    golden('videob/error-401.json', 401),
    golden('videob/error-429.json', 429),
    golden('videob/error-500.json', 500),
  ],
  tasks: [
    {
      name: 'queued, running, then success',
      polls: [
        // These answers still carry the recording's video URL and usage: only `status` may count.
        { answer: QUEUED, status: 'queued' },
        { answer: RUNNING, status: 'running' },
        {
          // Asked 720p for 5 s; the vendor made 2 s at 480p and bills 19,845 tokens.
          answer: recorded('videob/poll-succeeded.json'),
          status: 'succeeded',
          billed: { video_seconds: 2, resolution: '480p', completion_tokens: 19845 },
        },
      ],
    },
    {
      name: 'failed, with the vendor’s error',
      polls: [
        { answer: RUNNING, status: 'running' },
        {
          answer: golden('videob/poll-failed.json'),
          status: 'failed',
          error: {
            code: 'OutputVideoSensitiveContentDetected.PolicyViolation',
            message: 'The request failed because the output video may be related to copyright restrictions.',
          },
        },
      ],
    },
    {
      name: 'poll errors, then cancelled',
      polls: [
        { answer: golden('videob/error-500.json', 500), status: 'queued' },
        { answer: golden('videob/error-429.json', 429), status: 'queued' },
        {
          answer: golden('videob/poll-cancelled.json'),
          status: 'cancelled',
          error: { code: 'cancelled', message: 'the upstream reports the task cancelled' },
        },
      ],
    },
    {
      // Past its execution window: a failure, never billed.
      name: 'expired',
      polls: [
        { answer: RUNNING, status: 'running' },
        {
          answer: golden('videob/poll-expired.json'),
          status: 'failed',
          error: { code: 'expired', message: 'the upstream reports the task expired' },
        },
      ],
    },
  ],
});
