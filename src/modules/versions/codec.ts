import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * Snapshots as stored: brotli-compressed JSON (quality 9, text mode). A 40-step flow of ~20 kB
 * JSON stores in ~2 kB (bench/version-storage.ts); quality 11 saves a few percent for several
 * times the CPU, on the publishing request.
 */
export const encodeSnapshot = (snapshot: Record<string, unknown>): Buffer => {
  const json = Buffer.from(JSON.stringify(snapshot));
  return brotliCompressSync(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
};

/** The snapshot of a stored row: plain JSON (written by SQL, migration 0090) or compressed. */
export const decodeSnapshot = (row: {
  snapshot: Record<string, unknown> | null;
  snapshotBr: Buffer | null;
}): Record<string, unknown> =>
  row.snapshot ??
  (JSON.parse(brotliDecompressSync(row.snapshotBr!).toString('utf8')) as Record<string, unknown>);
