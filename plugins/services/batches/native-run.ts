/**
 * Batches a vendor runs in its own batch API (an upstream plugin's `VendorBatch.Upstream`): the lines are mapped
 * by the family's `prepare`, exactly as the same calls alone would be, and handed over in one submit; the
 * batch is then polled until the vendor ends it, and each line's answer is read by the family's reader,
 * billed at the model's batch price (one record per line, written once) and kept for the output file.
 *
 * The submit happens once. A step stores that it is handing the batch over before it does; a step that
 * finds it so without the vendor's id died mid-submit and ends the batch failed rather than submit it
 * again (the vendor may be running it already), as an interrupted video submit is.
 */
import { GatewayError, type Usage } from '../../../core/kit/plugin';
import type { BatchLineResult, BatchLineStore } from '../../../core/kit/service';
import type { RouteTarget } from '../../../core/kit/stage';
import type { BudgetLedger, Catalogue, Pricing, UsageStore } from '../../../core/kit/tokens';
import { handedBack, type TaskChange, type VideoTask } from '../../../core/kit/task';
import type { EndpointInfo } from '../../../core/kit/upstream';
import type { VendorBatch } from '../../../core/kit/vendor-calls';
import type { JsonObject } from '../../../core/kit/json';
import { UNANSWERED } from './batch-output';
import { stopped, type BatchRun, type Finalize } from './batch-run';
import { asWork, type BatchWork } from './batch-work';
import type { InputLine } from './input-lines';
import { lineContext } from './line-context';
import { lineRecord, lineRequestId } from './line-record';
import type { BatchOptions } from './options';

export interface NativeRunParts {
  readonly options: BatchOptions;
  readonly lines: BatchLineStore;
  readonly usage: UsageStore;
  readonly budgets: BudgetLedger;
  readonly catalogue: Catalogue;
  readonly pricing: Pricing;
  readonly now: () => number;
}

/** What the family made of a line: the vendor's body, or its refusal (the line's result, never sent). */
type Prepared = { readonly line: VendorBatch.Line } | { readonly refused: BatchLineResult };

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, estimated: false };

export class NativeRun {
  constructor(
    private readonly parts: NativeRunParts,
    private readonly finalize: Finalize,
  ) {}

  async step(run: BatchRun): Promise<TaskChange> {
    const vendor = this.targetOf(run.task)?.upstream.plugin.batches;
    // Its upstream is gone from the configuration, or has no batch API now: wait for it to return.
    if (!vendor) throw new Error(`upstream ${run.task.upstream} has no batch API in this configuration`);
    const vendorId = run.task.upstream_task_id;
    return vendorId === null ? this.submit(run, vendor) : this.follow(run, vendor, vendorId);
  }

  private async submit(run: BatchRun, vendor: VendorBatch.Upstream): Promise<TaskChange> {
    const { task, work, step } = run;
    const stop = stopped(run, this.parts.now());
    if (stop) return this.finalize(run, stop); // nothing was handed over
    if (work.submitting) return this.finalize(run, UNANSWERED.submitLost);
    if (!(await step.save({ status: 'running', work: asWork({ ...work, submitting: true }) }))) return {};
    const prepared = await Promise.all(
      run.input!.map((line, index) => this.prepare(task, work, line, index)),
    );
    for (const p of prepared) if ('refused' in p) await this.parts.lines.put(task.id, p.refused);
    const lines = prepared.flatMap((p) => ('line' in p ? [p.line] : []));
    if (lines.length === 0) return this.finalize(run, 'done');
    let vendorId: string;
    try {
      vendorId = await vendor.submit(work.endpoint, lines, task.request_id);
    } catch (e) {
      return this.submitFailed(run, e);
    }
    const submitted = { ...work, submitting: false };
    if (!(await step.save({ upstream_task_id: vendorId, work: asWork(submitted) }))) return {};
    return this.pollLater(task);
  }

  /**
   * A refusal (4xx) created nothing: the batch fails with the vendor's reason. An answer of 5xx or 429
   * created nothing either: the submit is tried again. Anything else (a timeout) may have created the
   * vendor's batch: the flag stays, and the next step ends the batch as interrupted.
   */
  private async submitFailed(run: BatchRun, e: unknown): Promise<TaskChange> {
    if (e instanceof GatewayError && e.code === 'upstream_refused')
      return this.finalize(run, { code: 'batch_refused', message: e.message });
    if (e instanceof GatewayError && e.code === 'upstream_error')
      await run.step.save({ work: asWork({ ...run.work, submitting: false }) });
    throw e;
  }

  private async follow(run: BatchRun, vendor: VendorBatch.Upstream, vendorId: string): Promise<TaskChange> {
    const { task, work, step } = run;
    const stop = task.cancel_requested_at !== undefined || this.parts.now() >= work.expires_at;
    if (stop && !work.cancel_sent) {
      await vendor.cancel(vendorId);
      if (!(await step.save({ work: asWork({ ...work, cancel_sent: true }) }))) return {};
    }
    const state = await vendor.poll(vendorId);
    if (state.state === 'failed') return this.finalize(run, state.error);
    if (state.state === 'running')
      return { ...this.pollLater(task), work: asWork({ ...work, cancel_sent: stop, completed: state.done }) };
    await this.bill(run, await vendor.results(vendorId));
    return this.finalize(run, stopped(run, this.parts.now()) ?? 'done');
  }

  /** Reads, bills and keeps each line's outcome; a line billed or kept before (a retried step) is not again. */
  private async bill(run: BatchRun, results: readonly VendorBatch.LineResult[]): Promise<void> {
    const { task, work } = run;
    const input = run.input!;
    const indexOf = new Map(input.map((line, i) => [line.custom_id, i]));
    for (const result of results) {
      const index = indexOf.get(result.custom_id);
      if (index === undefined) continue; // not a line of this batch: nothing to file it under
      const kept = await this.keep(task, work, input[index]!, index, result);
      await this.parts.lines.put(task.id, kept);
    }
  }

  /** One line's outcome as kept for the files, after its usage record is written (an answer only). */
  private async keep(
    task: VideoTask,
    work: BatchWork,
    line: InputLine,
    index: number,
    result: VendorBatch.LineResult,
  ): Promise<BatchLineResult> {
    const requestId = lineRequestId(task.id, index);
    const kept = { index, custom_id: line.custom_id, request_id: requestId };
    if (result.body === null) return { ...kept, status_code: 0, body: null, error: result.error };
    const { usage, body } =
      result.status_code === 200
        ? await this.read(task, work, line, index, result.body)
        : { usage: NO_USAGE, body: result.body };
    const endpoint = this.endpointOf(work);
    const record = lineRecord(
      task,
      {
        index,
        custom_id: line.custom_id,
        model: line.model,
        endpoint: endpoint?.id ?? work.endpoint,
        status: result.status_code,
        usage,
        cost_micros: this.parts.pricing.batchCost(line.model, usage),
      },
      this.parts.now(),
    );
    if (await this.parts.usage.recordOnce(record)) void this.parts.budgets.recorded(record);
    return { ...kept, status_code: result.status_code, body, error: null };
  }

  /** The answer's usage, read by the family's reader for the line as the same call alone, and the client's body. */
  private async read(
    task: VideoTask,
    work: BatchWork,
    line: InputLine,
    index: number,
    answer: JsonObject,
  ): Promise<{ usage: Usage; body: JsonObject }> {
    const target = this.catalogueTarget(task, line);
    const endpoint = this.endpointOf(work);
    if (!target || !endpoint) return { usage: NO_USAGE, body: answer };
    const ctx = lineContext(line.body, endpoint, work.headers, lineRequestId(task.id, index));
    const request = await target.upstream.plugin.prepare!(ctx, target.spec, target.upstreamModel);
    const read = request.reader.json(answer);
    return { usage: read.usage, body: read.replace ?? answer };
  }

  /** The line as the vendor gets it, mapped by the family's `prepare`; or the family's refusal of it. */
  private async prepare(task: VideoTask, work: BatchWork, line: InputLine, index: number): Promise<Prepared> {
    const target = this.catalogueTarget(task, line);
    const endpoint = this.endpointOf(work);
    const requestId = lineRequestId(task.id, index);
    if (!target?.upstream.plugin.prepare || !endpoint)
      return {
        refused: refusal(
          index,
          line,
          requestId,
          404,
          `model '${line.model}' is not served on ${task.upstream}`,
        ),
      };
    try {
      const ctx = lineContext(line.body, endpoint, work.headers, requestId);
      const request = await target.upstream.plugin.prepare(ctx, target.spec, target.upstreamModel);
      return {
        line: { custom_id: line.custom_id, body: JSON.parse(request.body.toString('utf8')) as JsonObject },
      };
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return {
        refused: {
          index,
          custom_id: line.custom_id,
          status_code: e.status,
          request_id: requestId,
          body: JSON.parse(e.body()) as JsonObject,
          error: null,
        },
      };
    }
  }

  private pollLater(task: VideoTask): TaskChange {
    return {
      next_poll_at: this.parts.now() + this.parts.options.native_poll_every,
      lease: handedBack(task.lease?.owner ?? ''),
    };
  }

  private targetOf(task: VideoTask): RouteTarget | undefined {
    return this.parts.catalogue.targetOn(task.model, task.upstream);
  }

  private catalogueTarget(task: VideoTask, line: InputLine): RouteTarget | undefined {
    return this.parts.catalogue.targetOn(line.model, task.upstream);
  }

  private endpointOf(work: BatchWork): EndpointInfo | undefined {
    return this.parts.catalogue.endpointAt(work.endpoint);
  }
}

function refusal(
  index: number,
  line: InputLine,
  requestId: string,
  status: number,
  message: string,
): BatchLineResult {
  return {
    index,
    custom_id: line.custom_id,
    status_code: status,
    request_id: requestId,
    body: { error: { code: 'model_not_found', message, type: 'error' } },
    error: null,
  };
}
