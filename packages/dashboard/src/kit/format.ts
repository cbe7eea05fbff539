/** Formatting shared by every page: dates, rates, enum names, datetime-local inputs. */

export const formatDate = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';

export const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** An API enum as words: `PRODUCT_TOUR` → `Product tour`. */
export const humanize = (s: string): string => s.charAt(0) + s.slice(1).toLowerCase().replace(/_/g, ' ');

/** An ISO instant as a datetime-local input value (local time), and back. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}
