/**
 * Pipeline stages: the phases a stage implements, what it hands back, and the gateway's services it may
 * be given, each with its token (the rest of what a plugin uses is in ./plugin).
 */
export type { StageAnswer, StageTrace } from '../contracts/context';
export type { EventFilter, JsonAnswer, Middleware, Next, StreamControl, StreamEnd } from '../contracts/stage';

export { CatalogueToken, type Catalogue } from '../routing/catalogue';
export type { RouteAffinity, RouteChoices, RouteTarget } from '../contracts/route';
export { ResilienceToken, type Resilience } from '../routing/resilience';
export { KeyServiceToken, type KeyService } from '../keys/key-service';
export { isExpired, type KeyRecord } from '../stores/key-store';
// The MCP tools a call's key and team allow (`allowed_tools`), as one check.
export { toolsAllowedBy } from '../keys/tool-access';
export { modelRefusal } from '../keys/model-access';
export { callEstimate } from '../billing/call-estimate';
export { BATCH_LINE_HEADER, BATCH_LINE_SEAL, type BatchLineTag } from '../contracts/batch-line';
export type { TeamRecord } from '../stores/team-store';
export { TeamServiceToken, type TeamService } from '../teams/team-service';
export { UsageStoreToken, type UsageRecord, type UsageStore } from '../stores/usage-store';
export { PricingToken, type Pricing } from '../billing/pricing';
export {
  BudgetLedgerToken,
  budgetRefusal,
  budgetSubjectsOf,
  type BudgetHold,
  type BudgetLedger,
  type BudgetSubject,
} from '../billing/budget-ledger';
export { KeptStateToken, type KeptState } from '../reload/kept-state';
// What a stage adds beside the request path: its own metrics, and admin routes (audited when they change).
export {
  PluginMetricsToken,
  type PluginMetrics,
  type PluginMetricConfig,
} from '../observability/plugin-metrics';
export {
  PluginAdminRoutesToken,
  type PluginAdminRoutes,
  type PluginAdminRoute,
  type PluginAdminCall,
} from '../admin/plugin-routes';
export { TASK_STORED } from '../tasks/submission';

// Redis, when configured: the link, the instances sharing it, and its scripts.
export { RedisToken, type RedisLink } from '../redis/redis-link';
export { LiveInstancesToken, type LiveInstances } from '../redis/live-instances';
export { RedisScript } from '../redis/redis-script';
