/**
 * Whether a key (and its team) may use a model: both `allowed_models` lists must allow it, an empty list
 * allowing every model. The refusal names which list refused.
 */
import { Errors, type GatewayError } from '../base/errors';

interface AllowsModels {
  readonly allowed_models?: readonly string[] | undefined;
}

export function modelRefusal(
  key: AllowsModels | undefined,
  team: AllowsModels | undefined,
  model: string,
): GatewayError | undefined {
  const allowed = key?.allowed_models;
  if (allowed?.length && !allowed.includes(model)) return Errors.modelNotAllowed(model);
  const teamAllowed = team?.allowed_models;
  if (teamAllowed?.length && !teamAllowed.includes(model)) return Errors.teamModelNotAllowed(model);
  return undefined;
}
