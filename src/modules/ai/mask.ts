/**
 * The masked form of a provider key, the only form that leaves the service: its first three
 * characters (the vendor prefix, `sk-`, `AIz`) and last four, `sk-...abcd`. Keys too short for
 * that to hide most of them show only `...` and their last characters where at most a quarter
 * is shown.
 */
export function maskKey(key: string): string {
  const k = key.trim();
  if (k.length >= 16) return `${k.slice(0, 3)}...${k.slice(-4)}`;
  const shown = Math.floor(k.length / 4);
  return shown > 0 ? `...${k.slice(-shown)}` : '...';
}
