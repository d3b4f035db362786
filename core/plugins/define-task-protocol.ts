import type { IncomingHttpHeaders } from 'node:http';
import type { constructor } from 'tsyringe/dist/typings/types';
import { type JsonObject } from '../base/json';
import { definePlugin } from './define-plugin';
import { protocolOptions, type ProtocolOptions, type TaskProtocol } from '../tasks/protocol';
import type { VideoTask } from '../stores/video-task';

/**
 * What a task protocol declares: its routes and its mappings. Methods are called on the definition
 * itself, so they may read `this.words`.
 */
export interface TaskProtocolDefinition
  extends Omit<TaskProtocol, 'models' | 'checkSubmit'>, Partial<Pick<TaskProtocol, 'checkSubmit'>> {
  /** The model patterns served when gateway.yaml gives the protocol no `models`. */
  readonly defaultModels: readonly string[];
}

/**
 * Registers a task protocol under `name` (a key of `video.protocols`): a protocol is only its data, so
 * each protocol file is a definition, not a class of its own.
 */
export function defineTaskProtocol(
  name: string,
  definition: TaskProtocolDefinition,
): constructor<TaskProtocol> {
  @definePlugin({ kind: 'task-protocol', name, options: protocolOptions(definition.defaultModels) })
  class DefinedTaskProtocol implements TaskProtocol {
    readonly submitPath = definition.submitPath;
    readonly queryPath = definition.queryPath;
    readonly words = definition.words;
    readonly models: readonly string[];

    constructor(options: ProtocolOptions) {
      this.models = options.models;
    }

    checkSubmit(headers: IncomingHttpHeaders): void {
      definition.checkSubmit?.(headers);
    }

    newTaskId(): string {
      return definition.newTaskId();
    }

    submitted(task: VideoTask, requestId: string): JsonObject {
      return definition.submitted(task, requestId);
    }

    queried(task: VideoTask, requestId: string): JsonObject {
      return definition.queried(task, requestId);
    }
  }
  return DefinedTaskProtocol;
}
