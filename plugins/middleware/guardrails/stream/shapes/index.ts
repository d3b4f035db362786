/** The stream shape of each client API the guard reads, by endpoint id; a new one for each stream. */
import { ChatShape } from './chat';
import { MessagesShape } from './messages';
import { ResponsesShape } from './responses';
import type { StreamShape } from './shape';

const SHAPES: ReadonlyMap<string, () => StreamShape> = new Map<string, () => StreamShape>([
  ['chat-completions', () => new ChatShape()],
  ['messages', () => new MessagesShape()],
  ['responses', () => new ResponsesShape()],
]);

/** A fresh shape for one stream of `endpoint`; undefined for an API whose streams carry no text to read. */
export const streamShape = (endpoint: string): StreamShape | undefined => SHAPES.get(endpoint)?.();

export type { StreamShape } from './shape';
