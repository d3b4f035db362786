/**
 * Body fields that some upstreams, their SDKs or the gateways in front of them (LiteLLM's `api_base`,
 * `api_key`, `custom_llm_provider`; Azure's `azure_endpoint`) read as where to send a call or with which
 * credential. The gateway alone chooses the upstream and its key, so a client may not send them, at the
 * top level or inside an object an upstream merges into the request (`extra_body`).
 */
import { isJsonObject, type JsonObject } from '../base/json';
import { Errors } from '../base/errors';

const DESTINATION_FIELDS: ReadonlySet<string> = new Set([
  'api_base',
  'base_url',
  'baseURL',
  'api_key',
  'apiKey',
  'api_version',
  'api_type',
  'azure_endpoint',
  'azure_ad_token',
  'custom_llm_provider',
  'deployment_id',
  'extra_headers',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'aws_region_name',
  'vertex_project',
  'vertex_location',
  'vertex_credentials',
]);

/** Objects whose keys an upstream treats as top-level request options. */
const MERGED_OBJECTS: readonly string[] = ['extra_body'];

function rejectIn(object: JsonObject, prefix: string): void {
  for (const field in object) {
    if (DESTINATION_FIELDS.has(field)) throw Errors.forbiddenField(prefix + field);
  }
}

/** Throws 400 naming the first destination or credential field the body carries. */
export function rejectDestinationFields(body: JsonObject): void {
  rejectIn(body, '');
  for (const name of MERGED_OBJECTS) {
    const merged = body[name];
    if (isJsonObject(merged)) rejectIn(merged, `${name}.`);
  }
}
