/**
 * The usage line's serializer, written into dist/ by `npm run build` (scripts/build-serializers.js):
 * fast-json-stringify's standalone code for usageLineSchema, which loads only the library's runtime.
 */
import type { UsageRecord } from '../usage-store';

declare const serialize: (record: UsageRecord) => string;
export = serialize;
