/** Display helpers: times in UTC, money from integer micro-units, CSV. */

/** `2026-11-23 12:00 UTC` (with `seconds`, `12:00:05`), or '—'. */
export const utc = (iso: string | undefined, seconds = false): string =>
  iso
    ? `${new Date(iso)
        .toISOString()
        .slice(0, seconds ? 19 : 16)
        .replace('T', ' ')} UTC`
    : '—';

/** Micro-units as a decimal with 2 to 6 places, exactly (no float arithmetic): 1500 → 0.0015. */
export function money(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / 1_000_000).toLocaleString('en-US');
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}${whole}.${fraction.padEnd(2, '0')}`;
}

/** '12.5' → 12500000 micro-units, or undefined when not a non-negative decimal with ≤ 6 places. */
export function parseMoney(text: string): number | undefined {
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
}

/** RFC 4180 text: fields with commas, quotes or line breaks are quoted. */
export function csv(rows: readonly (readonly (string | number)[])[]): string {
  const field = (v: string | number) => {
    const text = String(v);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Offers `text` as a file download, made in the page (no server round trip). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
