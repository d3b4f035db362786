import { randomUUID } from 'node:crypto';

/** A client's id is kept when it is short and plain, so it can be logged and echoed safely. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(presented: string | string[] | undefined): string {
  return typeof presented === 'string' && SANE_ID.test(presented) ? presented : randomUUID();
}
