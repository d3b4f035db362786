import { z } from 'zod';
import { pollOptions } from '../../../core/kit/task';
import { upstreamOptions } from '../../../core/kit/upstream';

/** Where a video family's task API lives under `base_url`, and the headers only its submit needs. */
export interface VideoPaths {
  readonly submit_path: string;
  /** With `{id}` where the upstream task id goes. */
  readonly task_path: string;
  readonly submit_headers: Readonly<Record<string, string>>;
}

/** A video upstream's gateway.yaml block: the common upstream options, its paths, and its `poll:` policy. */
export const videoOptions = (defaults: VideoPaths) =>
  upstreamOptions.extend({
    submit_path: z.string().startsWith('/').default(defaults.submit_path),
    task_path: z.string().startsWith('/').includes('{id}').default(defaults.task_path),
    submit_headers: z.record(z.string(), z.string()).default({ ...defaults.submit_headers }),
    poll: pollOptions,
  });

export type VideoOptions = z.output<ReturnType<typeof videoOptions>>;
