/**
 * The usage record of each tool call, as every metered call has one (`endpoint: 'mcp'`, no tokens), priced
 * by the section's `prices`, and counted by the budgets of its key and team at once.
 */
import { PatternTable, type GatewayContext } from '../../../core/kit/plugin';
import type { BudgetLedger, UsageRecord, UsageStore } from '../../../core/kit/tokens';
import type { EndedCall } from './call-recorder';

/** Micro-units per call, by tool name: the exact name's price, else the first pattern's that matches. */
export class ToolPrices {
  private readonly table: PatternTable<number>;

  constructor(prices: Readonly<Record<string, number>>) {
    this.table = new PatternTable(prices);
  }

  /** Null where no price is given: the cost is unknown, never 0. */
  microsOf(name: string): number | null {
    const price = this.table.get(name);
    return price === undefined ? null : Math.round(price * 1_000_000);
  }
}

export interface LedgerServices {
  readonly store: UsageStore;
  readonly budgets: BudgetLedger;
  readonly prices: ToolPrices;
}

/** Records one HTTP request's calls (one, since a POST carries one message; more from an old client's batch). */
export class CallLedger {
  private count = 0;

  constructor(
    private readonly ctx: GatewayContext,
    private readonly services: LedgerServices,
  ) {}

  ended(call: EndedCall): void {
    const { ctx } = this;
    const { store, budgets, prices } = this.services;
    this.count++;
    const record: UsageRecord = {
      id: this.count === 1 ? ctx.requestId : `${ctx.requestId}-${this.count}`,
      key_id: ctx.key?.id ?? null,
      team_id: ctx.team?.id,
      model: call.name,
      upstream: call.server,
      endpoint: ctx.endpoint.id,
      status: 200,
      stream: false,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost_micros: call.outcome === 'ok' || call.outcome === 'vendor_error' ? prices.microsOf(call.name) : 0,
      tool: call.tool,
      server: call.server,
      estimated: false,
      outcome: call.outcome,
      latency_ms: Math.round(call.ms),
      created_at: new Date().toISOString(),
    };
    store.record(record);
    void budgets.recorded(record, ctx.key?.budget !== undefined || ctx.team?.budget !== undefined);
  }
}
