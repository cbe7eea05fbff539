/**
 * A local stand-in for an embedding provider in the retrieval benchmark: latent semantic
 * analysis (Deerwester et al., 1990) fitted on the benchmark's own articles. Texts become TF-IDF
 * vectors over lightly stemmed words; the article-by-article Gram matrix is diagonalized
 * (Jacobi), and a text's embedding is its projection on the top `dims` latent topics. Words that
 * occur in the same articles land near each other, so a question can be near an article it
 * shares few words with: the effect hybrid retrieval adds, at the scale of a 55-article corpus.
 * It needs no network and no model weights; a provider's embeddings (trained on far more text)
 * rank differently, so its figures show the fusion working on real databases, not a provider's
 * quality.
 */

const STOP = new Set(
  'a an and are as at be by can do does for from how i if in is it its me my of on or our so that the their them then there this to we what when where which who why will with you your'.split(
    ' ',
  ),
);

function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const termsOf = (text: string): string[] =>
  (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w)).map(stem);

/** Eigenvalues and eigenvectors (columns) of a symmetric matrix, by cyclic Jacobi rotations. */
function symmetricEigen(input: number[][]): { values: number[]; vectors: number[][] } {
  const n = input.length;
  const a = input.map((row) => [...row]);
  const v: number[][] = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)),
  );
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-15) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: a.map((row, i) => row[i]!), vectors: v };
}

export interface LsaModel {
  readonly dims: number;
  embed(text: string): number[];
}

/** Fits the model on `documents` (the articles); `dims` latent topics at most. */
export function fitLsa(documents: string[], dims = 40): LsaModel {
  const docTerms = documents.map(termsOf);
  const df = new Map<string, number>();
  for (const terms of docTerms) for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = new Map([...df].map(([t, n]) => [t, Math.log((documents.length + 1) / (n + 0.5))]));

  const tfidf = (terms: string[]): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const t of terms) if (idf.has(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const weights = new Map([...counts].map(([t, c]) => [t, (1 + Math.log(c)) * idf.get(t)!]));
    const norm = Math.hypot(...weights.values()) || 1;
    for (const [t, w] of weights) weights.set(t, w / norm);
    return weights;
  };
  const docs = docTerms.map(tfidf);
  const dot = (x: Map<string, number>, y: Map<string, number>) => {
    let sum = 0;
    for (const [t, w] of x) sum += w * (y.get(t) ?? 0);
    return sum;
  };
  const gram = docs.map((x) => docs.map((y) => dot(x, y)));
  const { values, vectors } = symmetricEigen(gram);
  const order = values
    .map((value, i) => ({ value, i }))
    .filter((e) => e.value > 1e-9)
    .sort((x, y) => y.value - x.value)
    .slice(0, dims);

  return {
    dims: order.length,
    embed(text) {
      const q = tfidf(termsOf(text));
      const sims = docs.map((d) => dot(q, d));
      const v = order.map(
        ({ value, i }) => sims.reduce((s, sim, j) => s + sim * vectors[j]![i]!, 0) / Math.sqrt(value),
      );
      const norm = Math.hypot(...v);
      // a text with no word of the corpus has no direction: as a failed embedding call, the
      // retrieval then falls back to full text
      if (!(norm > 0)) throw new Error('no word of the corpus');
      return v.map((x) => x / norm);
    },
  };
}
