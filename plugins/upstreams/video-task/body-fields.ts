/** Reading the few fields of a native video body the gateway needs; a 400 names the field otherwise. */
import { Errors } from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';

/** The object at `field` of `body` (`input`, `parameters`). */
export function objectField(body: JsonObject, field: string): JsonObject {
  const value = body[field];
  if (!isJsonObject(value)) throw Errors.invalidRequest(`field '${field}' must be an object`);
  return value;
}

export function textField(parent: JsonObject, field: string, path: string): string {
  const value = parent[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw Errors.invalidRequest(`field '${path}' must be a non-empty string`);
  }
  return value;
}

export function positiveIntField(parent: JsonObject, field: string, path: string): number {
  const value = parent[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw Errors.invalidRequest(`field '${path}' must be a positive integer`);
  }
  return value;
}

/** `value` as a non-negative count, else undefined. */
export const countOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
