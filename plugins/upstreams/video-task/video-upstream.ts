/**
 * What every video family shares: submit the client's native body (only the model renamed, when a route
 * says so), read the upstream's task id, poll the upstream task and map its answer. A family is data
 * (VideoFamilySpec): its models, what it checks in a body, and how it reads its vendor's answers.
 */
import {
  checkCeiling,
  checkResolution,
  credentialHeaders,
  type ModelLimits,
  type ModelSpec,
  type UpstreamPlugin,
  upstreamUrl,
} from '../../../core/kit/upstream';
import {
  answerJson,
  isTransient,
  type UpstreamAnswer,
  type UpstreamCaller,
} from '../../../core/kit/vendor-calls';
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import {
  type PollOutcome,
  type PollPolicy,
  pollPolicy,
  type SubmitOutcome,
  type TaskParams,
  type TaskUpstream,
  type TaskUsage,
} from '../../../core/kit/task';
import { VideoApi } from '../../apis/videos';
import type { VideoOptions } from './video-options';

export interface VideoFamilySpec {
  readonly vendor: string;
  readonly models: readonly string[];
  /** Unix seconds shown as `created` in the model list. */
  readonly created: number;
  /** Checks what the gateway needs from the native body; throws a 400 naming the field. */
  check(body: JsonObject): TaskParams;
  /** Where a body says its duration and resolution, for the 400 that refuses one over the model's limits. */
  readonly paramFields: Readonly<Record<keyof TaskParams, string>>;
  /** The vendor's allowed durations and resolutions, for every model of the family. */
  readonly limits: ModelLimits;
  /** Tokens a video of this length and resolution is billed, for families billed in tokens. */
  tokensFor?(seconds: number, resolution: string | undefined): number;
  /** The upstream task id in a 2xx submit answer. */
  taskIdOf(answer: unknown): string | undefined;
  /** A 2xx poll answer as a normalised outcome. */
  read(answer: unknown): PollOutcome;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export class VideoUpstream implements UpstreamPlugin, TaskUpstream {
  readonly models: readonly ModelSpec[];
  readonly polling: PollPolicy;
  readonly tasks: TaskUpstream = this;
  private readonly auth: Readonly<Record<string, string>>;

  constructor(
    private readonly spec: VideoFamilySpec,
    private readonly options: VideoOptions,
    private readonly upstream: UpstreamCaller,
  ) {
    this.models = spec.models.map((id) => ({
      id,
      api: VideoApi,
      created: spec.created,
      ownedBy: spec.vendor,
      limits: spec.limits,
    }));
    this.polling = pollPolicy(options.poll);
    this.auth = credentialHeaders(options);
  }

  check(body: JsonObject, model: ModelSpec): TaskParams {
    const params = this.spec.check(body);
    const limits = model.limits ?? {};
    const fields = this.spec.paramFields;
    checkCeiling(fields.duration_s, params.duration_s, limits.max_video_seconds, model.id);
    checkResolution(fields.resolution, params.resolution, limits.video_resolutions, model.id);
    return params;
  }

  estimate(params: TaskParams, model: ModelSpec): TaskUsage {
    const limits = model.limits ?? {};
    const seconds = params.duration_s ?? limits.max_video_seconds;
    // The largest allowed resolution: the family lists them smallest first.
    const resolution = params.resolution ?? limits.video_resolutions?.at(-1);
    const tokens = seconds !== undefined ? this.spec.tokensFor?.(seconds, resolution) : undefined;
    return {
      ...(seconds !== undefined ? { video_seconds: seconds } : {}),
      ...(resolution !== undefined ? { resolution } : {}),
      ...(tokens !== undefined ? { tokens } : {}),
    };
  }

  async submit(
    body: JsonObject,
    raw: Buffer,
    upstreamModel: string,
    requestId: string,
    traceparent?: string,
  ): Promise<SubmitOutcome> {
    const renamed = body.model !== upstreamModel;
    const answer = await this.upstream.call({
      method: 'POST',
      url: upstreamUrl(this.options, this.options.submit_path),
      // The request id lets an operator match an upstream task to the gateway's logs.
      headers: {
        ...this.auth,
        ...this.options.submit_headers,
        ...JSON_HEADERS,
        'x-request-id': requestId,
        ...(traceparent ? { traceparent } : {}),
      },
      body: renamed ? Buffer.from(JSON.stringify({ ...body, model: upstreamModel })) : raw,
    });
    if (answer.status >= 300) return refusal(answer);
    const upstreamTaskId = this.spec.taskIdOf(answerJson(answer));
    if (!upstreamTaskId)
      throw Errors.upstreamBadAnswer(this.upstream.upstream, 'a submit answer without a task id');
    return { accepted: true, upstreamTaskId };
  }

  async poll(upstreamTaskId: string, requestId?: string, traceparent?: string): Promise<PollOutcome> {
    const path = this.options.task_path.replace('{id}', encodeURIComponent(upstreamTaskId));
    const headers = {
      ...this.auth,
      ...(requestId ? { 'x-request-id': requestId } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
    const answer = await this.upstream.call({ method: 'GET', url: upstreamUrl(this.options, path), headers });
    if (isTransient(answer.status))
      throw Errors.upstreamBadAnswer(this.upstream.upstream, `a poll answered ${answer.status}`);
    // Any other refusal (a task the upstream does not know, say) settles nothing before the deadline.
    if (answer.status >= 300) return { state: 'unknown' };
    return this.spec.read(answerJson(answer));
  }
}

const refusal = (answer: UpstreamAnswer): SubmitOutcome => ({
  accepted: false,
  status: answer.status,
  contentType: answer.contentType,
  body: answer.body,
});
