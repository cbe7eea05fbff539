/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranked list gives an item
 * 1 / (k + rank), ranks from 1; an item's score is the sum over the lists it appears in. It
 * needs no score calibration between the lists (full-text ranks and vector distances are not
 * comparable), and k = 60 damps the weight of the very first places.
 */
export const RRF_K = 60;

export interface Fused {
  id: string;
  score: number;
}

/** The union of `lists` (each best first, ids unique within a list), best fused score first. */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], k = RRF_K): Fused[] {
  const ranks = new Map<string, number[]>();
  for (const list of lists) {
    list.forEach((id, i) => {
      const seen = ranks.get(id);
      if (seen) seen.push(i + 1);
      else ranks.set(id, [i + 1]);
    });
  }
  // Summed best rank first, so the score (a float) does not depend on the order of the lists;
  // ties go to the better single rank, then the id.
  return [...ranks]
    .map(([id, r]) => {
      r.sort((a, b) => a - b);
      return { id, best: r[0]!, score: r.reduce((sum, rank) => sum + 1 / (k + rank), 0) };
    })
    .sort((a, b) => b.score - a.score || a.best - b.best || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ id, score }) => ({ id, score }));
}
