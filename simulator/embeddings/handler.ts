import type { Call, JsonAnswer } from '../call';
import { readControls, type Controls } from '../controls';
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

/** An embeddings request as read, and the controls of its first text input. */
interface EmbeddingsCall {
  readonly req: EmbeddingsRequest;
  readonly controls: Controls;
}

function readEmbeddings(d: EmbeddingsDialect, call: Call): EmbeddingsCall {
  const req = parseEmbeddingsRequest(d, call.body);
  const first = req.inputs.find((one): one is string => typeof one === 'string') ?? '';
  return { req, controls: readControls(call.headers, first) };
}

/** The forced status, then a deterministic vector per input, in the vendor's body. */
function vectorsBody(d: EmbeddingsDialect, call: Call, { req, controls }: EmbeddingsCall): unknown {
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const vectors = req.inputs.map((one) => {
    const vector = embed(req.model, one, req.dimensions);
    return req.base64 ? toBase64(vector) : vector;
  });
  return d.body({ model: req.model, vectors, promptTokens: tokensOf(req), simId: call.simId });
}

/**
 * One embeddings exchange: validate, apply the controls (latency, then a forced status), and answer
 * with a deterministic vector per input, in the vendor's body. Of the controls only `latency_ms` and
 * `status` mean anything here; a `#sim` directive is read from the first text input.
 */
async function handleEmbeddings(d: EmbeddingsDialect, ex: Exchange): Promise<void> {
  const embeddings = readEmbeddings(d, ex);
  const { latencyMs } = embeddings.controls;
  if (latencyMs && !(await ex.delay(latencyMs))) return;
  ex.sendJson(200, vectorsBody(d, ex, embeddings));
}

/** The route of `d`'s embeddings endpoint, for a family's `withRoutes`. */
export const embeddingsRoute = (d: EmbeddingsDialect): Readonly<Record<string, RouteHandler>> => ({
  [`POST ${d.path}`]: (ex) => handleEmbeddings(d, ex),
});

/** `d`'s embeddings for a call that has no connection (a batch's line), as the route answers them. */
export const embeddingsAnswer =
  (d: EmbeddingsDialect): JsonAnswer =>
  (call) =>
    vectorsBody(d, call, readEmbeddings(d, call));
