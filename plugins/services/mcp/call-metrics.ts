/**
 * The MCP endpoint's metrics: `gateway_mcp_calls_total{server, tool, outcome}` and the calls' latency,
 * `gateway_mcp_call_duration_seconds{server, tool}`. Label values are bounded by the configuration (server
 * names) and by what the servers listed (Listed), never by what a client sends.
 */
import type { Counter, Histogram } from 'prom-client';
import type { PluginMetrics } from '../../../core/kit/tokens';
import type { EndedCall } from './call-recorder';
import type { Listed } from './listed';

export class CallMetrics {
  private readonly calls: Counter<string>;
  private readonly duration: Histogram<string>;

  constructor(
    metrics: PluginMetrics,
    private readonly listed: Listed,
  ) {
    this.calls = metrics.counter({
      name: 'gateway_mcp_calls_total',
      help: 'MCP tool calls relayed to their servers, by server, tool and outcome',
      labelNames: ['server', 'tool', 'outcome'],
    });
    this.duration = metrics.histogram({
      name: 'gateway_mcp_call_duration_seconds',
      help: 'How long MCP tool calls took, from the gateway sending them to their answer',
      labelNames: ['server', 'tool'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    });
  }

  ended(call: EndedCall): void {
    const tool = this.listed.label(call.server, call.tool);
    this.calls.inc({ server: call.server, tool, outcome: call.outcome });
    this.duration.observe({ server: call.server, tool }, call.ms / 1000);
  }
}
