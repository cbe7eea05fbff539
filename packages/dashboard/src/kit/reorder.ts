/**
 * Moving one entry of an ordered list (flow steps, survey questions, task-list items): the
 * entry at `from` taken out and put back at `to`. A move out of range or onto itself gives
 * `undefined`, so a caller can tell "nothing to save" from a new order.
 */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] | undefined {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return undefined;
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}
