/**
 * The batch API's words for a batch's state, and Anthropic's result lines for the gateway's own output
 * and error lines: every case, as a table.
 */
import t from 'tap';
import { batchStatus } from '../../../../plugins/services/batches/batch-object';
import { batchFiles, UNANSWERED } from '../../../../plugins/services/batches/batch-output';
import { messageResult } from '../../../../plugins/services/batches/message-results';
import type { TaskStatus, VideoTask } from '../../../../core/kit/task';

const task = (status: TaskStatus, more: Partial<VideoTask> = {}, finalizing: number | null = null) =>
  ({ status, work: { finalizing_at: finalizing }, ...more }) as unknown as VideoTask;

t.test("a batch's status in OpenAI's words", (t) => {
  const cases: [string, VideoTask, string][] = [
    ['queued', task('queued'), 'validating'],
    ['running', task('running'), 'in_progress'],
    ['running, writing its files', task('running', {}, 5), 'finalizing'],
    ['running, asked to cancel', task('running', { cancel_requested_at: 3 }), 'cancelling'],
    ['queued, asked to cancel', task('queued', { cancel_requested_at: 3 }), 'cancelling'],
    ['succeeded', task('succeeded'), 'completed'],
    ['failed', task('failed', { error: { code: 'batch_refused', message: '' } }), 'failed'],
    ['failed as expired', task('failed', { error: UNANSWERED.expired }), 'expired'],
    ['cancelled', task('cancelled'), 'cancelled'],
  ];
  for (const [what, given, word] of cases) t.equal(batchStatus(given), word, what);
  t.end();
});

t.test('output and error files: each line once, in input order, with why a line has no answer', (t) => {
  const files = batchFiles(
    'batch_x',
    ['a', 'b', 'c', 'd'],
    [
      {
        index: 2,
        custom_id: 'c',
        status_code: 400,
        request_id: 'r2',
        body: { error: { message: 'no' } },
        error: null,
      },
      { index: 0, custom_id: 'a', status_code: 200, request_id: 'r0', body: { ok: true }, error: null },
      { index: 3, custom_id: 'd', status_code: 0, request_id: 'r3', body: null, error: UNANSWERED.expired },
    ],
    () => UNANSWERED.cancelled,
  );
  const lines = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.same(
    lines(files.output).map((l) => l.custom_id),
    ['a'],
  );
  t.same(
    lines(files.errors).map((l) => l.custom_id),
    ['b', 'c', 'd'],
    'in input order',
  );
  t.match(lines(files.errors), [
    { custom_id: 'b', response: null, error: UNANSWERED.cancelled },
    { custom_id: 'c', response: { status_code: 400, body: { error: { message: 'no' } } }, error: null },
    { custom_id: 'd', response: null, error: UNANSWERED.expired },
  ]);
  t.same([files.completed, files.failed], [1, 3]);
  t.same(files.unanswered, { batch_cancelled: 1, batch_expired: 1 });
  t.end();
});

t.test("Anthropic's result line for each kind of output or error line", (t) => {
  const line = (response: unknown, error: unknown = null) =>
    JSON.stringify({ custom_id: 'x', response, error });
  const cases: [string, string, unknown][] = [
    [
      'an answer',
      line({ status_code: 200, body: { id: 'msg_1' } }),
      { type: 'succeeded', message: { id: 'msg_1' } },
    ],
    [
      "a vendor's error envelope",
      line({
        status_code: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
      }),
      { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } } },
    ],
    [
      "the gateway's error body",
      line({
        status_code: 429,
        body: { error: { code: 'budget_exhausted', message: 'spent', type: 'error' } },
      }),
      { type: 'errored', error: { type: 'error', error: { type: 'budget_exhausted', message: 'spent' } } },
    ],
    ['cancelled', line(null, UNANSWERED.cancelled), { type: 'canceled' }],
    ['expired', line(null, UNANSWERED.expired), { type: 'expired' }],
    [
      'interrupted',
      line(null, UNANSWERED.interrupted),
      {
        type: 'errored',
        error: { type: 'error', error: { type: 'api_error', message: UNANSWERED.interrupted.message } },
      },
    ],
  ];
  for (const [what, given, result] of cases)
    t.same(JSON.parse(messageResult(given)), { custom_id: 'x', result }, what);
  t.end();
});
