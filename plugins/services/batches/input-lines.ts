/**
 * The requests of a batch input file (OpenAI's format, one JSON object per line:
 * `{"custom_id", "method": "POST", "url", "body"}`), each checked as a request the gateway could send for
 * this key: a 400 names the first line that is not (lines count from 1, as an editor shows them).
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { GatewayError } from '../../../core/kit/plugin';
import { modelRefusal, type KeyRecord, type TeamRecord } from '../../../core/kit/stage';
import { type Catalogue } from '../../../core/kit/tokens';
import { BatchErrors } from './batch-errors';

/** The APIs a batch line may call: OpenAI's batch endpoints. */
export const BATCH_ENDPOINTS: readonly string[] = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'];

export interface InputLine {
  readonly custom_id: string;
  readonly url: string;
  readonly body: JsonObject;
  readonly model: string;
}

/** Who the lines are checked for: a line must name a model this key and its team may use. */
export interface LineCaller {
  readonly key: KeyRecord | undefined;
  readonly team: TeamRecord | undefined;
}

/** How the lines of one batch API are read. */
export interface LineRules {
  /** How many requests a batch may hold. */
  readonly maxLines: number;
  /** The APIs its requests may call. */
  readonly endpoints: readonly string[];
  /** How an error names the `n`th request (from 1): `line 3` in a file, `requests[2]` in a body. */
  readonly where: (n: number) => string;
}

/** An OpenAI batch input file's rules. */
export const fileLines = (maxLines: number): LineRules => ({
  maxLines,
  endpoints: BATCH_ENDPOINTS,
  where: (n) => `line ${n}`,
});

/** The requests parsed and checked against `rules`. */
export function readInputLines(
  content: Buffer,
  catalogue: Catalogue,
  caller: LineCaller,
  rules: LineRules,
): InputLine[] {
  const { maxLines, where } = rules;
  const texts = content.toString('utf8').split('\n');
  const lines: InputLine[] = [];
  const seen = new Set<string>();
  texts.forEach((text, i) => {
    if (text.trim() === '') return;
    if (lines.length === maxLines) throw BatchErrors.tooManyLines(maxLines);
    const line = checkedLine(text, where(i + 1), { catalogue, caller, rules }, lines[0]?.url);
    if (seen.has(line.custom_id))
      throw BatchErrors.badLine(where(i + 1), `custom_id '${line.custom_id}' is used by an earlier request`);
    seen.add(line.custom_id);
    lines.push(line);
  });
  if (lines.length === 0) throw BatchErrors.badUpload('the file holds no requests');
  return lines;
}

interface Checking {
  readonly catalogue: Catalogue;
  readonly caller: LineCaller;
  readonly rules: LineRules;
}

/** The request at `n`, which must call `firstUrl` when an earlier one named it: a batch calls one API. */
function checkedLine(
  text: string,
  n: string,
  { catalogue, caller, rules }: Checking,
  firstUrl: string | undefined,
): InputLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw BatchErrors.badLine(n, 'not a JSON object');
  }
  if (!isJsonObject(parsed)) throw BatchErrors.badLine(n, 'not a JSON object');
  const { custom_id, method, url, body } = parsed;
  if (typeof custom_id !== 'string' || custom_id === '')
    throw BatchErrors.badLine(n, "'custom_id' must be a non-empty string");
  if (method !== 'POST') throw BatchErrors.badLine(n, "'method' must be POST");
  if (typeof url !== 'string' || !rules.endpoints.includes(url))
    throw BatchErrors.badLine(n, `'url' must be one of ${rules.endpoints.join(', ')}`);
  if (firstUrl !== undefined && url !== firstUrl)
    throw BatchErrors.badLine(n, `url '${url}' differs from the first line's '${firstUrl}'`);
  if (!isJsonObject(body)) throw BatchErrors.badLine(n, "'body' must be a JSON object");
  const model = body.model;
  if (typeof model !== 'string' || model === '')
    throw BatchErrors.badLine(n, "'body.model' must be a non-empty string");
  if (body.stream === true) throw BatchErrors.badLine(n, 'a batch request cannot stream');
  checkModel(n, url, model, catalogue, caller);
  return { custom_id, url, body, model };
}

/** The line's model must be served on its API, to this key: the 404 or 403 the call itself would get. */
function checkModel(n: string, url: string, model: string, catalogue: Catalogue, caller: LineCaller): void {
  const endpoint = catalogue.endpointAt(url);
  if (!endpoint) throw BatchErrors.badLine(n, `no configured upstream serves ${url}`);
  try {
    catalogue.resolve(endpoint, model);
  } catch (e) {
    if (e instanceof GatewayError) throw BatchErrors.badLine(n, e.message);
    throw e;
  }
  const refusal = modelRefusal(caller.key, caller.team, model);
  if (refusal) throw BatchErrors.badLine(n, refusal.message);
}

/** The lines of a file already checked when its batch was created: parsed, not checked again. */
export function storedInputLines(content: Buffer): InputLine[] {
  return content
    .toString('utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const { custom_id, url, body } = JSON.parse(text) as {
        custom_id: string;
        url: string;
        body: JsonObject;
      };
      return { custom_id, url, body, model: body.model as string };
    });
}
