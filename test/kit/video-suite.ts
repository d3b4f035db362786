/**
 * The kit's suite for video task families. The fake upstream accepts each submit with the family's submit
 * answer, then answers the task's polls with the case's poll answers, one after another; after each, the
 * suite checks what the gateway stored and what a client querying the task sees (the protocol's status
 * word; once it ends, the video URL or the vendor's error), and that a task is billed exactly once when it
 * succeeds and never otherwise. A refused submit, in the vendor's documented error shape, reaches the
 * client as the vendor sent it (a native protocol's client speaks the vendor's API) and leaves no task.
 * Every submit reaches the upstream as the family must send it (upstream-request.ts: its `submit_path`,
 * its credential and `submit_headers`, never the client's key, the client's body with the route's model
 * id), and every poll on its `task_path` with the upstream's task id and the family's credential.
 */
import 'reflect-metadata';
import type { Test } from 'tap';
import { definedPluginsOf } from '../../core/plugins/define-plugin';
import type { UsageRecord } from '../../core/stores/usage-store';
import { isTerminal, type TaskError, type TaskStatus, type VideoTask } from '../../core/stores/video-task';
import { eventually } from '../helpers/wait';
import type { JsonResponse } from '../helpers/http';
import { PROTOCOLS, queryVideo, submitVideo, type ProtocolName } from '../plugins/video-helpers';
import { bytesOf, type Answer } from './fake-upstream';
import {
  KIT_UPSTREAM_MODEL,
  recordsOf,
  requestId,
  startKitGateway,
  type FamilyUnderTest,
  type KitGateway,
} from './kit-gateway';
import {
  callOf,
  checkPolls,
  checkUpstreamRequests,
  clientBodyRenamed,
  expectedRequest,
  upstreamRequestsOf,
  type Defaults,
  type HeaderRule,
  type UpstreamExpectation,
} from './upstream-request';

export interface VideoFamilyKit extends FamilyUnderTest {
  /** The vendor's answer to an accepted submit. */
  readonly submitted: Answer;
  /** A native body for `model`, as a client submits it on every protocol. */
  body(model: string): Record<string, unknown>;
  /** The protocols clients may use for the family; the tasks take them (and the models) in turn. */
  readonly protocols: readonly ProtocolName[];
  /** The vendor's refusals of a submit. */
  readonly refusals: readonly Answer[];
  readonly tasks: readonly VideoTaskCase[];
  /** What a submit sends the upstream where it differs from the kit's defaults (upstream-request.ts). */
  readonly upstream?: UpstreamExpectation;
}

/** One task's life: the poll answers the vendor gives, in order. */
export interface VideoTaskCase {
  readonly name: string;
  readonly polls: readonly PollStep[];
}

export interface PollStep {
  readonly answer: Answer;
  /** The task's status once the gateway has read the answer. */
  readonly status: TaskStatus;
  /** A failed or cancelled task's error, as the vendor gave it (or the gateway's stand-in). */
  readonly error?: TaskError;
  /** A succeeded task's usage record (matched as `t.match` does). */
  readonly billed?: Partial<UsageRecord>;
}

/** Polls as often as the gateway allows, so a step takes tens of milliseconds. */
const KIT_POLL = { every: '10ms', max_every: '20ms', deadline: '30s', concurrency: 16, per_second: 0 };

type Json = Record<string, unknown>;

/** Runs the suite: the refusals, then every task case, protocols and models taken in turn. */
export async function runVideoFamilyKit(t: Test, kit: VideoFamilyKit): Promise<void> {
  await t.test(`plugin kit: ${kit.plugin}`, async (t) => {
    const k = await startKitGateway(t, { ...kit, options: { poll: KIT_POLL, ...kit.options } });
    for (const [i, answer] of kit.refusals.entries()) {
      const protocol = kit.protocols[i % kit.protocols.length]!;
      await t.test(`submit refused: ${answer.file} (${protocol})`, (t) =>
        checkRefusal(t, k, kit, answer, protocol, k.models[i % k.models.length]!),
      );
    }
    for (const [i, c] of kit.tasks.entries()) {
      const protocol = kit.protocols[i % kit.protocols.length]!;
      const model = k.models[i % k.models.length]!;
      await t.test(`${c.name} (${protocol}, ${model})`, (t) => checkTask(t, k, kit, c, protocol, model));
    }
  });
}

/** A submit as the family must send it: the options' path and headers, the client's body renamed. */
function submitDefaults(k: KitGateway): Defaults {
  const extra = k.options.submit_headers as Readonly<Record<string, HeaderRule>> | undefined;
  return { pathOption: 'submit_path', headers: extra ?? {}, body: clientBodyRenamed };
}

/** Submits the kit's body for `model` under request id `id`, and checks what reached the upstream. */
async function submitted(
  t: Test,
  k: KitGateway,
  kit: VideoFamilyKit,
  protocol: ProtocolName,
  model: string,
  id: string,
): Promise<JsonResponse> {
  const body = kit.body(model);
  const res = await submitVideo(k.gw, protocol, body, { 'x-request-id': id });
  const want = expectedRequest(k, submitDefaults(k), [kit.upstream], callOf(body, model, false));
  checkUpstreamRequests(t, k, upstreamRequestsOf(k, id), want);
  return res;
}

async function checkRefusal(
  t: Test,
  k: KitGateway,
  kit: VideoFamilyKit,
  answer: Answer,
  protocol: ProtocolName,
  model: string,
): Promise<void> {
  await k.upstream.clear();
  await k.upstream.serve(answer, { path_prefix: k.pathPrefix });
  const before = await liveTasks(k);
  const id = requestId(`refused.${answer.file}`);
  const res = await submitted(t, k, kit, protocol, model, id);
  const sent = bytesOf(answer).toString('utf8');
  t.match(JSON.parse(sent), kit.errorShape(answer.status), "the vendor's error shape");
  t.equal(res.status, answer.status, "the client gets the upstream's status");
  t.equal(res.text, sent, 'and its body, byte for byte');
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    t.equal(res.headers.get(name), value, `and its ${name} header`);
  }
  // The gateway stores a task before it calls the upstream, and fails it on a refusal: none is left live.
  t.equal(await liveTasks(k), before, 'no task to poll, query or bill');
  t.strictSame(await k.gw.gateway.usage.list({ id }), [], 'not billed');
}

async function checkTask(
  t: Test,
  k: KitGateway,
  kit: VideoFamilyKit,
  c: VideoTaskCase,
  protocol: ProtocolName,
  model: string,
): Promise<void> {
  await k.upstream.clear();
  k.gw.sim.log.clear(); // the polls checked at the end are this task's
  // Faults match in the order added: the submit (it names the model upstream) first, every poll (no
  // body) after.
  await k.upstream.serve(kit.submitted, { path_prefix: k.pathPrefix, model: KIT_UPSTREAM_MODEL }, 1);
  let poll = await k.upstream.serve(c.polls[0]!.answer, { path_prefix: k.pathPrefix });
  const res = await submitted(t, k, kit, protocol, model, requestId(`submit.${c.name}`));
  t.equal(res.status, 200, 'submitted');
  const id = PROTOCOLS[protocol].taskId(res.body);
  for (const [i, step] of c.polls.entries()) {
    if (i > 0) {
      await k.upstream.clear();
      poll = await k.upstream.serve(step.answer, { path_prefix: k.pathPrefix });
    }
    const task = await afterAnswer(k, poll, id);
    await t.test(`${step.answer.file} → ${step.status}`, (t) => checkStep(t, k, protocol, id, task, step));
  }
  // A task left running would read the next case's answers.
  t.ok(isTerminal(c.polls.at(-1)!.status), 'the case ends its task');
  const polls = k.gw.sim.log.list().filter((r) => r.method === 'GET' && r.path.startsWith(k.pathPrefix));
  checkPolls(t, k, polls, (await k.gw.gateway.tasks.get(id))?.upstream_task_id ?? '');
}

/** The task once the gateway has read the answer served as fault `poll`: it ended, or was asked again. */
async function afterAnswer(k: KitGateway, poll: number, id: string): Promise<VideoTask> {
  await eventually(async () => {
    const task = await k.gw.gateway.tasks.get(id);
    // Polls of a task are one at a time, so a second poll means the first answer was read.
    return (task !== undefined && isTerminal(task.status)) || ((await k.upstream.hits(poll)) ?? 0) >= 2;
  }, 10_000);
  // Read again: the task read above may predate the second poll.
  return (await k.gw.gateway.tasks.get(id))!;
}

async function checkStep(
  t: Test,
  k: KitGateway,
  protocol: ProtocolName,
  id: string,
  task: VideoTask,
  step: PollStep,
): Promise<void> {
  const view = PROTOCOLS[protocol];
  t.equal(task.status, step.status, 'stored status');
  const queried = await queryVideo(k.gw, protocol, id);
  t.equal(view.status(queried.body), wordsOf(protocol)[step.status], 'the client sees its word for it');
  if (step.status === 'succeeded') {
    const url = task.video_url ?? '';
    t.ok(holds(JSON.parse(bytesOf(step.answer).toString('utf8')), url), "the vendor's video URL is kept");
    t.equal(view.videoUrl(queried.body), url, 'and given to the client');
    const records = await recordsOf(k.gw, id);
    t.equal(records.length, 1, 'billed once');
    t.match(records[0], { endpoint: 'video', estimated: false, ...step.billed }, 'for what the vendor made');
    return;
  }
  t.equal(view.videoUrl(queried.body), undefined, 'no video URL');
  t.strictSame(await k.gw.gateway.usage.list({ id }), [], 'not billed');
  if (!isTerminal(step.status)) return;
  t.strictSame(task.error, step.error, 'the error');
  t.ok(
    holds(queried.body, step.error?.code) && holds(queried.body, step.error?.message),
    'shown to the client',
  );
}

/** The status words of a registered task protocol (as its plugin declares them). */
function wordsOf(protocol: ProtocolName): Readonly<Record<TaskStatus, string>> {
  const registration = definedPluginsOf('task-protocol').get(protocol);
  if (!registration) throw new Error(`no task protocol ${protocol}`);
  return new registration.cls(registration.options.parse({})).words;
}

/** Whether `value` appears anywhere in the JSON `body`. */
function holds(body: unknown, value: unknown): boolean {
  if (body === value) return true;
  if (typeof body !== 'object' || body === null) return false;
  return Object.values(body as Json).some((v) => holds(v, value));
}

/** Tasks that are, or may become, anything but failed. */
async function liveTasks(k: KitGateway): Promise<number> {
  const counts = await k.gw.gateway.tasks.countByStatus();
  return counts.queued + counts.running + counts.succeeded + counts.cancelled;
}
