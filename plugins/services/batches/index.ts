/**
 * Batches (`batches:` in gateway.yaml): OpenAI's files and batches API and Anthropic's Message Batches on
 * the gateway's port, for every chat, embeddings, Responses and messages model. A batch runs at its
 * vendor when the model's upstream offers a batch API (native-run.ts: the vendor's batch price), else the
 * gateway runs it, each line through its own pipeline under the batch's key (gateway-run.ts). Either way
 * it is a task the poller of whichever instance takes it works on, so it finishes, and every line is
 * billed once, whether or not anyone asks.
 */
import { inject } from 'tsyringe';
import { ConfigToken, definePlugin, type GatewayConfig } from '../../../core/kit/plugin';
import {
  type BudgetLedger,
  BudgetLedgerToken,
  type Catalogue,
  CatalogueToken,
  type Pricing,
  PricingToken,
  type UsageStore,
  UsageStoreToken,
} from '../../../core/kit/tokens';
import {
  BatchLineStoreToken,
  type BatchLineStore,
  FileStoreToken,
  type FileStore,
  LoopbackToken,
  type Loopback,
  SealerToken,
  type Sealer,
  type ServiceEndpoint,
  type ServicePlugin,
} from '../../../core/kit/service';
import { TaskStoreToken, type TaskStore, type TaskWorker } from '../../../core/kit/task';
import { batchRoutes } from './batch-routes';
import { fileRoutes } from './file-routes';
import { messageBatchRoutes } from './message-batch-routes';
import { GatewayRun } from './gateway-run';
import { NativeRun } from './native-run';
import { BatchFinalizer } from './batch-finalize';
import { BatchWorker } from './batch-worker';
import type { Finalize } from './batch-run';
import { batchOptions, type BatchOptions } from './options';

@definePlugin({ kind: 'service', name: 'batches', options: batchOptions })
export class BatchService implements ServicePlugin {
  readonly endpoints: readonly ServiceEndpoint[];
  readonly taskWorkers: readonly TaskWorker[];

  constructor(
    options: BatchOptions,
    @inject(ConfigToken) config: GatewayConfig,
    @inject(CatalogueToken) catalogue: Catalogue,
    @inject(TaskStoreToken) tasks: TaskStore,
    @inject(FileStoreToken) files: FileStore,
    @inject(BatchLineStoreToken) lines: BatchLineStore,
    @inject(SealerToken) sealer: Sealer,
    @inject(LoopbackToken) loopback: Loopback,
    @inject(BudgetLedgerToken) budgets: BudgetLedger,
    @inject(PricingToken) pricing: Pricing,
    @inject(UsageStoreToken) usage: UsageStore,
  ) {
    const now = Date.now;
    const retentionMs = config.storage.batch_retention;
    this.endpoints = [
      ...fileRoutes({ options, files, catalogue, retentionMs, now }),
      ...batchRoutes({ options, files, tasks, catalogue, sealer, budgets, pricing, now }),
      ...messageBatchRoutes({ options, files, tasks, catalogue, sealer, budgets, pricing, retentionMs, now }),
    ];
    const finalizer = new BatchFinalizer({ files, lines, budgets, retentionMs, now });
    const finalize: Finalize = (run, ending) => finalizer.finalize(run, ending);
    const ways = {
      gateway: new GatewayRun({ options, lines, sealer, loopback, budgets, now }, finalize),
      native: new NativeRun({ options, lines, usage, budgets, catalogue, pricing, now }, finalize),
    };
    this.taskWorkers = [new BatchWorker(options.concurrency, files, { catalogue, pricing }, ways, now)];
  }
}
