/**
 * OpenAI's Batch API at the vendor, for a family whose vendor has it (`batches: true` in its spec): the
 * lines go up as a `purpose: batch` file, a batch is created on it, polled until it ends, and its output
 * and error files are read back. Paths under `base_url` are the options' `files_path` and `batches_path`.
 */
import { isJsonObject, stringOr, type JsonObject } from '../../../core/kit/json';
import { callForJson, urlUnder, vendorJson } from '../../../core/kit/vendor-calls';
import type { UpstreamCaller, VendorBatch, VendorJson } from '../../../core/kit/vendor-calls';

export interface OpenAiBatchUrls {
  readonly files: URL;
  readonly batches: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/** OpenAI's batch statuses by what they mean to the gateway: still running, or over with results to read. */
const RUNNING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);
const ENDED = new Set(['completed', 'expired', 'cancelled']);

export class OpenAiBatches implements VendorBatch.Upstream {
  readonly oneModel = true;

  private readonly json: VendorJson;

  constructor(
    readonly endpoints: readonly string[],
    private readonly caller: UpstreamCaller,
    private readonly urls: OpenAiBatchUrls,
  ) {
    this.json = vendorJson(caller, urls.headers);
  }

  async submit(endpoint: string, lines: readonly VendorBatch.Line[], requestId: string): Promise<string> {
    const jsonl = lines
      .map(({ custom_id, body }) => JSON.stringify({ custom_id, method: 'POST', url: endpoint, body }))
      .join('\n');
    const file = await this.upload(`${jsonl}\n`, requestId);
    const body = { input_file_id: file, endpoint, completion_window: '24h' };
    const batch = await this.json('POST', this.urls.batches, body, requestId);
    return String(batch.id);
  }

  async poll(vendorId: string): Promise<VendorBatch.State> {
    const batch = await this.json('GET', urlUnder(this.urls.batches, vendorId));
    const status = String(batch.status);
    if (ENDED.has(status)) return { state: 'ended' };
    if (RUNNING.has(status)) {
      const counts = isJsonObject(batch.request_counts) ? batch.request_counts : {};
      return { state: 'running', done: Number(counts.completed ?? 0) + Number(counts.failed ?? 0) };
    }
    return { state: 'failed', error: firstError(batch) };
  }

  async results(vendorId: string): Promise<readonly VendorBatch.LineResult[]> {
    const batch = await this.json('GET', urlUnder(this.urls.batches, vendorId));
    const files = [batch.output_file_id, batch.error_file_id].filter(
      (id): id is string => typeof id === 'string',
    );
    const texts = await Promise.all(files.map((id) => this.content(id)));
    return texts.flatMap((text) =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map(resultOf),
    );
  }

  async cancel(vendorId: string): Promise<void> {
    await this.json('POST', urlUnder(this.urls.batches, vendorId, 'cancel')).catch(
      (e: { status?: number }) => {
        if (e.status !== 409 && e.status !== 400) throw e; // already over: nothing to stop
      },
    );
  }

  /** Uploads the lines as OpenAI's multipart form (encoded by the platform's FormData); the file's id. */
  private async upload(jsonl: string, requestId: string): Promise<string> {
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([jsonl], { type: 'application/jsonl' }), 'batch.jsonl');
    const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
    const file = await callForJson(this.caller, {
      method: 'POST',
      url: this.urls.files,
      headers: {
        ...this.urls.headers,
        'content-type': encoded.headers.get('content-type') ?? 'multipart/form-data',
        'x-request-id': requestId,
      },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    return String(file.id);
  }

  private async content(fileId: string): Promise<string> {
    const answer = await this.caller.call({
      method: 'GET',
      url: urlUnder(this.urls.files, fileId, 'content'),
      headers: this.urls.headers,
    });
    if (answer.status !== 200)
      throw new Error(`${this.caller.upstream}: ${answer.status} reading file ${fileId}`);
    return answer.body.toString('utf8');
  }
}

/** A line of an output or error file: its answer, or why it has none. */
function resultOf(text: string): VendorBatch.LineResult {
  const line = JSON.parse(text) as JsonObject;
  const response = isJsonObject(line.response) ? line.response : undefined;
  const error = isJsonObject(line.error) ? line.error : undefined;
  return {
    custom_id: String(line.custom_id),
    status_code: Number(response?.status_code ?? 0),
    body: response && isJsonObject(response.body) ? response.body : null,
    error: error ? { code: stringOr(error.code, 'batch_error'), message: stringOr(error.message, '') } : null,
  };
}

function firstError(batch: JsonObject): { code: string; message: string } {
  const errors = isJsonObject(batch.errors) && Array.isArray(batch.errors.data) ? batch.errors.data : [];
  const first = errors.find(isJsonObject);
  return {
    code: stringOr(first?.code, 'batch_failed'),
    message: stringOr(first?.message, `the vendor failed the batch (${stringOr(batch.status, 'failed')})`),
  };
}
