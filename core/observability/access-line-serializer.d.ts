/**
 * The access line's serializer, written into dist/ by `npm run build` (scripts/build-serializers.js):
 * fast-json-stringify's standalone code for accessLineSchema, which loads only the library's runtime.
 */
import type { AccessLine } from './access-line-shape';

declare const serialize: (line: AccessLine) => string;
export = serialize;
