/**
 * The Responses part of a family whose vendor serves OpenAI's Responses API itself: its chat models
 * take `POST /v1/responses` natively (they list the API in `alsoServes`), and the client's bytes go to
 * the vendor's `/responses` unless the model's upstream name differs. The gateway relays the vendor's
 * answer and meters its `usage` (ResponsesResponseReader).
 *
 * What the vendor would do but the gateway cannot stand behind is refused with a 400 naming the field:
 * the family's field table leaves out what reads state the vendor keeps for the whole upstream account,
 * not for one key (`previous_response_id`, `conversation`, stored `prompt`s), and this part refuses a
 * tool the vendor runs itself (web or file search, code interpreter, …), which the vendor bills per
 * call beside the tokens, where the gateway meters tokens only, and `background: true`, whose answer
 * comes later from an endpoint the gateway does not serve, so it could never be metered.
 */
import { Errors, type FamilyRequest } from '../../../core/kit/plugin';
import { estimateTokens, type ModelSpec, type UpstreamRequest } from '../../../core/kit/upstream';
import type { JsonObject } from '../../../core/kit/json';
import {
  ResponsesApi,
  responsesFields,
  validateResponsesRequest,
  type ResponsesFieldTable,
} from '../../apis/responses';
import { responsesInputChars } from '../../apis/responses-usage';
import { ApiPart, sentBytes, type PartTarget } from './api-part';
import { ResponsesResponseReader } from './responses-reader';

/** What a family declares of its vendor's Responses API (ChatFamilySpec.responses). */
export interface ResponsesFamilySpec {
  /** Which of the API's fields the gateway passes to this vendor. */
  readonly fields: ResponsesFieldTable;
  /** The tool types the client runs (the vendor only names the call), the only ones taken. */
  readonly tools: readonly string[];
}

export class ResponsesPart extends ApiPart {
  private readonly tools: ReadonlySet<string>;

  constructor(spec: ResponsesFamilySpec, target: PartTarget) {
    // No models of its own: the chat part's models serve it too.
    super(ResponsesApi, [], responsesFields(spec.fields), target);
    this.tools = new Set(spec.tools);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const body = await ctx.json();
    validateResponsesRequest(body, this.fields, model);
    this.checkTools(body.tools, model.id);
    if (body.background === true) throw Errors.unsupportedField('background', model.id, 'as true');
    const renamed = upstreamModel !== model.id;
    return this.request(
      await sentBytes(ctx, renamed ? { ...body, model: upstreamModel } : undefined),
      new ResponsesResponseReader(() => estimateTokens(responsesInputChars(body))),
    );
  }

  private checkTools(tools: unknown, model: string): void {
    if (!Array.isArray(tools)) return;
    tools.forEach((tool: JsonObject, i) => {
      if (!this.tools.has(String(tool.type))) {
        throw Errors.unsupportedField(`tools[${i}]`, model, `of type '${String(tool.type)}'`);
      }
    });
  }
}
