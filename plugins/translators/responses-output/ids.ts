/**
 * The ids of one Response, derived from the upstream answer's: `resp_…` for the response and `msg_…`,
 * `rs_…`, `fc_…` for its output items, the prefixes OpenAI's ids carry. The same upstream answer always
 * gets the same ids, so a JSON answer and a stream of one answer agree, and the ids stay traceable to
 * the upstream's. An upstream without an id gets a random one.
 */
import { randomBytes } from 'node:crypto';
import { writtenAsIs } from '../../../core/kit/json';

/** Item kind → the prefix of its id. */
export const ITEM_PREFIXES = { message: 'msg', reasoning: 'rs', function_call: 'fc' } as const;
export type ItemKind = keyof typeof ITEM_PREFIXES;

export class ResponseIds {
  private readonly base: string;
  /**
   * Whether the upstream's part, and so every id made of it, is written in JSON as it is: checked once,
   * where a test of each id, a string V8 holds in pieces, would run in its runtime.
   */
  private readonly asIs: boolean;
  readonly response: string;
  /** The same as JSON, which every Response of a stream carries. */
  readonly responseJson: string;

  /** `upstreamPrefix`: the upstream API's own id prefix (`chatcmpl-`), which the response's id does not repeat. */
  constructor(upstreamId: unknown, upstreamPrefix: RegExp) {
    const id = typeof upstreamId === 'string' ? upstreamId.replace(upstreamPrefix, '') : '';
    this.base = id === '' ? randomBytes(12).toString('hex') : id;
    this.asIs = writtenAsIs(this.base);
    this.response = `resp_${this.base}`;
    this.responseJson = this.json(this.response);
  }

  /** The id of the output item at `outputIndex`: unique within the response, whatever its kind. */
  item(kind: ItemKind, outputIndex: number): string {
    return `${ITEM_PREFIXES[kind]}_${this.base}_${outputIndex}`;
  }

  /** One of this Response's ids as `JSON.stringify` writes it. */
  json(id: string): string {
    return this.asIs ? `"${id}"` : JSON.stringify(id);
  }
}
