/**
 * What compressing session answers costs and saves: the route's own settings (brotli quality 1,
 * else gzip level 1, from 1 kB: SESSION_COMPRESSION in src/modules/sdk/routes.ts; keep the two
 * in step) applied to a session answer, bytes before and after, and CPU per answer (the median of
 * 5 runs of 200 compressions each), beside the other levels considered.
 *
 *   npx tsx bench/compression.ts                    # a session answer like the side-by-side fixture's
 *   ANSWER_FILE=answer.json npx tsx bench/compression.ts   # a saved answer (e.g. curl -o of POST /api/sdk/session)
 */
import { readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** 40 flows of 3 steps with modal content and URL triggers, as the fixture's session serves. */
function fixtureAnswer(): Buffer {
  const id = (n: number) => `0190f3a2-0000-7000-8000-${String(n).padStart(12, '0')}`;
  const flows = Array.from({ length: 40 }, (_, f) => ({
    id: id(f),
    name: `Bench flow ${f}`,
    version: 1,
    priority: f % 5,
    trigger: { type: 'URL_MATCH', config: { operator: 'contains', value: '/projects/' } },
    steps: Array.from({ length: 3 }, (_, s) => ({
      id: id(1000 + f * 3 + s),
      order: s,
      type: 'MODAL',
      content: {
        title: `Step ${s + 1} of flow ${f}`,
        body: 'This is the body text of a guidance step that explains the page.',
        buttons: [{ label: 'Next', action: 'NEXT' }],
      },
      targetSelector: null,
      placement: 'center',
    })),
    frequency: { type: 'ONCE' },
    dismissible: true,
  }));
  return Buffer.from(
    JSON.stringify({
      data: { sessionId: id(9999), endUserId: id(9998), flows, content: [], experiments: [] },
    }),
  );
}

const answer = process.env.ANSWER_FILE ? readFileSync(process.env.ANSWER_FILE) : fixtureAnswer();
const quality = (q: number) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: q, [constants.BROTLI_PARAM_SIZE_HINT]: answer.length },
});
/** The route's settings (SESSION_COMPRESSION): its threshold, brotli's quality, gzip's level. */
const SERVED = {
  threshold: 1024,
  brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } },
  gzip: { level: 1 },
};
const candidates: [string, (b: Buffer) => Buffer][] = [
  ['brotli q1 (served)', (b) => brotliCompressSync(b, SERVED.brotli)],
  ['gzip level 1 (served)', (b) => gzipSync(b, SERVED.gzip)],
  ['gzip level 6', (b) => gzipSync(b, { level: 6 })],
  ['brotli q4', (b) => brotliCompressSync(b, quality(4))],
  ['brotli q6', (b) => brotliCompressSync(b, quality(6))],
];

console.log(`session answer: ${answer.length} bytes (threshold ${SERVED.threshold} B)`);
for (const [name, compress] of candidates) {
  compress(answer);
  const runs: number[] = [];
  let out: Buffer = Buffer.alloc(0);
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 200; i++) out = compress(answer);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 200);
  }
  const median = runs.sort((a, b) => a - b)[2]!;
  console.log(
    `  ${name.padEnd(22)} ${String(out.length).padStart(7)} bytes (${((100 * out.length) / answer.length).toFixed(1)}%), ` +
      `${median.toFixed(0)} µs CPU per answer`,
  );
}
