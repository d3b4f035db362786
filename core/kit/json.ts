/** JSON bodies and text: a JSON object, and changes to JSON text made without parsing it whole. */
export {
  isJsonObject,
  numberJson,
  RepeatedMember,
  stringJson,
  stringOr,
  withFirstMember,
  withoutMember,
  writtenAsIs,
  type JsonObject,
} from '../base/json';
export { flatString } from '../base/flat-string';
