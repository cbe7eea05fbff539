/** `part / whole` in percent, rounded to one decimal (12.345 → 12.3); 0 when `whole` is 0. */
export function percentage(part: number, whole: number): number {
  if (whole === 0) return 0;
  return Math.round((part / whole) * 1000) / 10;
}
