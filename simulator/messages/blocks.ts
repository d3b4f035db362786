import { createHash } from 'node:crypto';
import { newToolUseId } from '../ids';

type Json = Readonly<Record<string, unknown>>;

/**
 * One content block of a reply, described once for both answers: whole for the JSON body, and
 * piece by piece for the stream. The stream code reads these fields and never tests a block's type.
 */
export interface BlockPlan {
  /** The complete block of the JSON reply. */
  readonly whole: Json;
  /** The block as `content_block_start` opens it, its streamed fields still empty. */
  readonly opening: Json;
  /** Output tokens in order; each is one paced content delta. */
  readonly pieces: readonly string[];
  /** The delta that carries one piece. */
  delta(piece: string): Json;
  /** Deltas that carry no tokens, sent before the pieces. */
  readonly lead: readonly Json[];
  /** Deltas that carry no tokens, sent after the pieces. */
  readonly tail: readonly Json[];
}

/** A stand-in for the vendor's opaque signature: the same thinking always gets the same one. */
const signatureOf = (thinking: string): string => createHash('sha256').update(thinking).digest('base64');

/** A `thinking` block; its signature arrives in one `signature_delta` just before the block stops. */
export function thinkingBlock(pieces: readonly string[]): BlockPlan {
  const thinking = pieces.join('');
  const signature = signatureOf(thinking);
  return {
    whole: { type: 'thinking', thinking, signature },
    opening: { type: 'thinking', thinking: '', signature: '' },
    pieces,
    delta: (piece) => ({ type: 'thinking_delta', thinking: piece }),
    lead: [],
    tail: [{ type: 'signature_delta', signature }],
  };
}

/** A `text` block. */
export function textBlock(pieces: readonly string[]): BlockPlan {
  return {
    whole: { type: 'text', text: pieces.join('') },
    opening: { type: 'text', text: '' },
    pieces,
    delta: (piece) => ({ type: 'text_delta', text: piece }),
    lead: [],
    tail: [],
  };
}

/**
 * A `tool_use` block whose input streams as JSON fragments. It opens with `input: {}` and an
 * empty first fragment, as the vendor's streams do.
 */
export function toolUseBlock(name: string, fragments: readonly string[]): BlockPlan {
  const id = newToolUseId();
  return {
    whole: { type: 'tool_use', id, name, input: JSON.parse(fragments.join('')) as unknown },
    opening: { type: 'tool_use', id, name, input: {} },
    pieces: fragments,
    delta: (piece) => ({ type: 'input_json_delta', partial_json: piece }),
    lead: [{ type: 'input_json_delta', partial_json: '' }],
    tail: [],
  };
}
