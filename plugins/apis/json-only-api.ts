/**
 * The APIs that answer in JSON only (embeddings, images, video tasks): no stream is relayed on them, yet
 * every API names the frames of its streams, and an upstream that streamed all the same would get
 * OpenAI-style ones.
 */
import type { ModelApi } from '../../core/kit/upstream';
import { OpenAiStreamDialect } from './chat-completions';

/** A `POST` API whose answers are JSON, never a stream. */
export const jsonOnlyApi = (api: Omit<ModelApi, 'method' | 'dialect'>): ModelApi =>
  Object.freeze({ ...api, method: 'POST', dialect: OpenAiStreamDialect });
