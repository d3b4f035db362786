/**
 * Pipeline stages: the phases a stage implements, what it hands back, and what it reads of a call (its
 * route, key, team and budget). The gateway's services a stage is given are in ./tokens; the rest of
 * what a plugin uses is in ./plugin.
 */
export type { StageAnswer, StageTrace } from '../contracts/context';
export type { EventFilter, JsonAnswer, Middleware, Next, StreamControl, StreamEnd } from '../contracts/stage';

export type { RouteAffinity, RouteChoices, RouteTarget } from '../contracts/route';
export { isExpired, type KeyRecord } from '../stores/key-store';
// The MCP tools a call's key and team allow (`allowed_tools`), as one check.
export { toolsAllowedBy } from '../keys/tool-access';
export { modelRefusal } from '../keys/model-access';
export { callEstimate } from '../billing/call-estimate';
export { BATCH_LINE_HEADER, BATCH_LINE_SEAL, type BatchLineTag } from '../contracts/batch-line';
export type { TeamRecord } from '../stores/team-store';
export {
  budgetRefusal,
  budgetSubjectsOf,
  type BudgetHold,
  type BudgetSubject,
} from '../billing/budget-ledger';
export { TASK_STORED } from '../tasks/submission';
