/**
 * The vendor's Message Batches API (docs/upstreams.md#batches): a batch of messages requests is created
 * in one call, polled until `processing_status` is `ended`, and its results read as JSON lines, one per
 * `custom_id`. An errored line keeps the vendor's error envelope and the status its error type stands for.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { urlUnder, vendorJson } from '../../../core/kit/vendor-calls';
import type { UpstreamCaller, VendorBatch, VendorJson } from '../../../core/kit/vendor-calls';

/** The HTTP status each of the vendor's error types is sent with. */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** A result without an answer, by its type. */
const UNANSWERED: Readonly<Record<string, { code: string; message: string }>> = {
  canceled: { code: 'batch_cancelled', message: 'the batch was cancelled before this request ran' },
  expired: { code: 'batch_expired', message: 'the batch expired before this request ran' },
};

export class MessageBatches implements VendorBatch.Upstream {
  readonly endpoints: readonly string[] = ['/v1/messages'];
  readonly oneModel = false;

  private readonly json: VendorJson;

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
  ) {
    this.json = vendorJson(caller, headers);
  }

  async submit(_endpoint: string, lines: readonly VendorBatch.Line[], requestId: string): Promise<string> {
    const requests = lines.map(({ custom_id, body }) => ({ custom_id, params: body }));
    const batch = await this.json('POST', this.url, { requests }, requestId);
    return String(batch.id);
  }

  async poll(vendorId: string): Promise<VendorBatch.State> {
    const batch = await this.json('GET', this.at(vendorId));
    if (batch.processing_status === 'ended') return { state: 'ended' };
    const counts = isJsonObject(batch.request_counts) ? batch.request_counts : {};
    const done = ['succeeded', 'errored', 'canceled', 'expired'].reduce(
      (n, k) => n + Number(counts[k] ?? 0),
      0,
    );
    return { state: 'running', done };
  }

  async results(vendorId: string): Promise<readonly VendorBatch.LineResult[]> {
    const answer = await this.caller.call({
      method: 'GET',
      url: this.at(vendorId, 'results'),
      headers: this.headers,
    });
    if (answer.status !== 200)
      throw new Error(`${this.caller.upstream}: ${answer.status} reading batch results`);
    return answer.body
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(resultOf);
  }

  async cancel(vendorId: string): Promise<void> {
    await this.json('POST', this.at(vendorId, 'cancel')).catch((e: { status?: number }) => {
      if (e.status !== 400 && e.status !== 409) throw e; // already over: nothing to stop
    });
  }

  private at(...segments: string[]): URL {
    return urlUnder(this.url, ...segments);
  }
}

/** One results line: the message, the vendor's error envelope with its status, or why it did not run. */
function resultOf(text: string): VendorBatch.LineResult {
  const line = JSON.parse(text) as JsonObject;
  const custom_id = String(line.custom_id);
  const result = isJsonObject(line.result) ? line.result : {};
  const type = String(result.type);
  if (type === 'succeeded' && isJsonObject(result.message))
    return { custom_id, status_code: 200, body: result.message, error: null };
  if (type === 'errored' && isJsonObject(result.error)) {
    const inner = isJsonObject(result.error.error) ? result.error.error : {};
    return {
      custom_id,
      status_code: ERROR_STATUS[String(inner.type)] ?? 500,
      body: result.error,
      error: null,
    };
  }
  return {
    custom_id,
    status_code: 0,
    body: null,
    error: UNANSWERED[type] ?? { code: 'batch_error', message: `the vendor gave no answer (${type})` },
  };
}
