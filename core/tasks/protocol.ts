/**
 * A video task protocol: the two routes a client uses (submit, query), the task id format, and the shapes
 * and status words of its answers. The body is the upstream's native body in every protocol; which
 * upstream gets it is decided by the model, never by the protocol.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { type JsonObject } from '../base/json';
import type { TaskStatus, VideoTask } from '../stores/video-task';

export interface TaskProtocol {
  /** `POST` path of submit. */
  readonly submitPath: string;
  /** `GET` path of query, with the task id as its `:id` segment. */
  readonly queryPath: string;
  /** Patterns (`*` globs) of the model ids this protocol accepts. */
  readonly models: readonly string[];
  /** The protocol's words for the normalised statuses (listed in docs/behaviour.md's mapping table). */
  readonly words: Readonly<Record<TaskStatus, string>>;
  /** Rules of the protocol itself, checked before the body (a 400 naming what is wrong). */
  checkSubmit(headers: IncomingHttpHeaders): void;
  /** A new unguessable task id in the protocol's format. */
  newTaskId(): string;
  /** The body of the submit answer; `requestId` is the gateway's id of this request. */
  submitted(task: VideoTask, requestId: string): JsonObject;
  /** The body of the query answer. */
  queried(task: VideoTask, requestId: string): JsonObject;
}

/** Options every protocol has: which models it accepts (`video.protocols.<name>.models`). */
export const protocolOptions = (defaultModels: readonly string[]) =>
  z
    .object({
      models: z
        .array(z.string().min(1))
        .min(1)
        .default([...defaultModels]),
    })
    .strict();

export type ProtocolOptions = z.output<ReturnType<typeof protocolOptions>>;
