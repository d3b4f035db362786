/**
 * A new video family runs the kit by listing its answers. `acme-video` (test/fixtures/plugins/acme-video)
 * hosts its models on videoa's task API, so it lists videoa's answers; its models come from the catalogue.
 */
import 'reflect-metadata';
import t from 'tap';
import '../../fixtures/plugins/acme-video';
import { golden, recorded } from '../fake-upstream';
import { runVideoFamilyKit } from '../video-suite';

void runVideoFamilyKit(t, {
  plugin: 'acme-video',
  // Its vendor's are DashScope's, as videoa's.
  errorShape: () => ({ code: /^[A-Z]/, message: String, request_id: String }),
  submitted: recorded('videoa/submit.json'),
  body: (model) => ({
    model,
    input: { prompt: 'A lighthouse in a storm' },
    parameters: { resolution: '720P', duration: 5 },
  }),
  // native-a serves videoa-* only: the generic protocol serves every model.
  protocols: ['generic'],
  refusals: [golden('videoa/error-429.json', 429)],
  tasks: [
    {
      name: 'running, then success',
      polls: [
        { answer: golden('videoa/poll-running.json'), status: 'running' },
        {
          answer: recorded('videoa/poll-succeeded.json'),
          status: 'succeeded',
          billed: { video_seconds: 10, resolution: '720P' },
        },
      ],
    },
    {
      name: 'failed',
      polls: [
        {
          answer: recorded('videoa/poll-failed.json'),
          status: 'failed',
          error: { code: 'InvalidParameter', message: 'The size is not match xxxxxx' },
        },
      ],
    },
  ],
});
