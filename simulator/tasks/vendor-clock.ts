// Both video vendors run on Beijing time, UTC+8, and write it without a zone.
const BEIJING_OFFSET_MS = 8 * 3600_000;

/** `YYYY-MM-DD hh:mm:ss.SSS` in Beijing time, the way DashScope writes task times. */
export const beijingTime = (ms: number): string =>
  new Date(ms + BEIJING_OFFSET_MS).toISOString().slice(0, 23).replace('T', ' ');

/** `YYYYMMDDhhmmss` in Beijing time, the stamp inside Ark task ids. */
export const beijingStamp = (ms: number): string => beijingTime(ms).slice(0, 19).replace(/[- :]/g, '');
