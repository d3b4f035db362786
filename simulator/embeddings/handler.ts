import { readControls } from '../controls';
import type { Exchange, RouteHandler } from '../exchange';
import { SimErrors } from '../sim-error';
import type { EmbeddingsDialect } from './dialect';
import { parseEmbeddingsRequest, type EmbeddingsRequest } from './request';
import { embed, toBase64 } from './vectors';

// The prompt-token heuristic the chat replies use: about four characters per token, at least one.
const CHARS_PER_TOKEN = 4;

/** Tokens the vendor counts: a token array its length, text by the heuristic. */
const tokensOf = (req: EmbeddingsRequest): number =>
  req.inputs.reduce<number>(
    (sum, one) =>
      sum + (typeof one === 'string' ? Math.max(1, Math.ceil(one.length / CHARS_PER_TOKEN)) : one.length),
    0,
  );

/**
 * One embeddings exchange: validate, apply the controls (latency, then a forced status), and answer
 * with a deterministic vector per input, in the vendor's body. Of the controls only `latency_ms` and
 * `status` mean anything here; a `#sim` directive is read from the first text input.
 */
async function handleEmbeddings(d: EmbeddingsDialect, ex: Exchange): Promise<void> {
  const req = parseEmbeddingsRequest(d, ex.body);
  const first = req.inputs.find((one): one is string => typeof one === 'string') ?? '';
  const controls = readControls(ex.req.headers, first);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const vectors = req.inputs.map((one) => {
    const vector = embed(req.model, one, req.dimensions);
    return req.base64 ? toBase64(vector) : vector;
  });
  ex.sendJson(200, d.body({ model: req.model, vectors, promptTokens: tokensOf(req), simId: ex.entry.id }));
}

/** The route of `d`'s embeddings endpoint, for a family's `withRoutes`. */
export const embeddingsRoute = (d: EmbeddingsDialect): Readonly<Record<string, RouteHandler>> => ({
  [`POST ${d.path}`]: (ex) => handleEmbeddings(d, ex),
});
