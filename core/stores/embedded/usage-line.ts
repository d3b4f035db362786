/**
 * A usage record as its line in `usage.jsonl`, by a serializer compiled from the record's fixed shape
 * (usage-line-shape.ts) by fast-json-stringify at build time: the same JSON as `JSON.stringify` gives
 * (absent fields left out), in about half its time, for the line every metered call writes.
 */
import type { UsageRecord } from '../usage-store';
import { flatString } from '../../base/flat-string';
import serialize from './usage-line-serializer';

/** A record's line, flat: it waits in the write queue for up to a batch's interval (flat-string.ts). */
export const usageLine = (record: UsageRecord): string => flatString(serialize(record));
