/**
 * Shared by the video tests: the three task protocols as a client sees them (paths, headers, where each
 * puts its task id, status and video URL), native bodies for each model, and waiting for a task to end.
 */
import { testCatalogue } from '../helpers/catalogue';
import type { TestGateway } from '../helpers/gateway';
import { getJson, postJson, type JsonResponse } from '../helpers/http';
import { until } from '../helpers/wait';

export type ProtocolName = 'generic' | 'native-a' | 'native-b';
type Body = Record<string, unknown>;

interface ClientView {
  readonly submitPath: string;
  readonly queryPath: (id: string) => string;
  readonly headers: Readonly<Record<string, string>>;
  readonly models: readonly string[];
  readonly taskId: (submitted: Body) => string;
  readonly status: (queried: Body) => string;
  readonly videoUrl: (queried: Body) => string | undefined;
  /** The protocol's words for a finished task. */
  readonly done: { readonly succeeded: string; readonly failed: string; readonly cancelled: string };
}

/** The models the test gateway serves through each video family's upstream. */
const VIDEOA_MODELS = testCatalogue().of('videoa');
const VIDEOB_MODELS = testCatalogue().of('videob');
export const VIDEOB_MODEL = 'videob-2-0-260128';

const field = (body: Body, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Body)[k] : undefined), body);

export const PROTOCOLS: Readonly<Record<ProtocolName, ClientView>> = {
  generic: {
    submitPath: '/v1/videos/generations',
    queryPath: (id) => `/v1/videos/generations/${id}`,
    headers: {},
    models: [...VIDEOA_MODELS, ...VIDEOB_MODELS],
    taskId: (b) => String(b.id),
    status: (b) => String(b.status),
    videoUrl: (b) => field(b, 'data', '0', 'url') as string | undefined,
    done: { succeeded: 'completed', failed: 'failed', cancelled: 'cancelled' },
  },
  'native-a': {
    submitPath: '/api/v1/services/aigc/video-generation/video-synthesis',
    queryPath: (id) => `/api/v1/tasks/${id}`,
    headers: { 'x-nativea-async': 'enable' },
    models: VIDEOA_MODELS,
    taskId: (b) => String(field(b, 'output', 'task_id')),
    status: (b) => String(field(b, 'output', 'task_status')),
    videoUrl: (b) => field(b, 'output', 'video_url') as string | undefined,
    done: { succeeded: 'SUCCEEDED', failed: 'FAILED', cancelled: 'CANCELED' },
  },
  'native-b': {
    submitPath: '/api/v3/contents/generations/tasks',
    queryPath: (id) => `/api/v3/contents/generations/tasks/${id}`,
    headers: {},
    models: VIDEOB_MODELS,
    taskId: (b) => String(b.id),
    status: (b) => String(b.status),
    videoUrl: (b) => field(b, 'content', 'video_url') as string | undefined,
    done: { succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled' },
  },
};

export const PROTOCOL_NAMES = Object.keys(PROTOCOLS) as ProtocolName[];

/** A native body for `model` whose prompt carries `directives` for the simulator (`task_ms=100 fail`). */
export function videoBody(model: string, directives = '', resolution = '720P', duration = 5): Body {
  const prompt = `A lighthouse in a storm${directives ? ` #sim ${directives}` : ''}`;
  if (model.startsWith('videob')) {
    return {
      model,
      content: [
        { type: 'text', text: `${prompt}\n--resolution ${resolution.toLowerCase()} --duration ${duration}` },
      ],
    };
  }
  return { model, input: { prompt }, parameters: { resolution, duration } };
}

export function submitVideo(
  gw: TestGateway,
  protocol: ProtocolName,
  body: unknown,
  headers: Record<string, string> = {},
  key = gw.key,
): Promise<JsonResponse> {
  const view = PROTOCOLS[protocol];
  return postJson(`${gw.url}${view.submitPath}`, body, key, { ...view.headers, ...headers });
}

export function queryVideo(
  gw: TestGateway,
  protocol: ProtocolName,
  id: string,
  key = gw.key,
): Promise<JsonResponse> {
  return getJson(`${gw.url}${PROTOCOLS[protocol].queryPath(id)}`, key);
}

/**
 * Queries until the task reaches one of the protocol's terminal words; returns that answer. A failure
 * names the task and the last answer seen.
 */
export function untilFinished(
  gw: TestGateway,
  protocol: ProtocolName,
  id: string,
  timeoutMs = 10_000,
): Promise<JsonResponse> {
  const { done, status } = PROTOCOLS[protocol];
  const terminal = new Set(Object.values(done));
  return until(
    () => queryVideo(gw, protocol, id),
    (answer) => terminal.has(status(answer.body)),
    { timeoutMs, what: `${protocol} task ${id} finished` },
  );
}
