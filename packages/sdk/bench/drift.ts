/**
 * The drift benchmark (issue 40), in real Chromium: each page of drift-pages.ts is loaded as
 * authored (deploy 0), every step's target is fingerprinted there, then deploys 1–3 are loaded
 * and every step is looked up the way the SDK does (target/wait.ts: deep selector, quick check,
 * healing scorer) with the deploy-0 fingerprint. Printed: correct anchors / steps whose element
 * still exists, wrong anchors, missed, and removed elements reported missing (or ambiguous).
 *
 *   npm run bench:drift -w @guidance/sdk        (exits 1 when a goal is not met)
 */
import type { Browser, Page } from 'playwright-core';
import { harness, launch } from './browser.js';
import { DRIFT_PAGES, type DriftPage } from './drift-pages.js';
import type { Targeting } from './harness.js';

declare const targeting: Targeting;

export interface DriftRow {
  page: string;
  deploy: number;
  step: string;
  exists: boolean;
  outcome: string;
  verdict: 'correct' | 'wrong' | 'missed' | 'reported-missing' | 'anchored-removed';
  confidence?: number;
  ms: number;
}

export interface DriftSummary {
  rows: DriftRow[];
  /** Lookups whose element still exists. */
  steps: number;
  correct: number;
  wrong: number;
  missed: number;
  removed: number;
  removedReported: number;
}

async function load(page: Page, html: string, keys: string[]): Promise<void> {
  await page.unroute('**/*').catch(() => {});
  await page.route('http://drift.test/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: html }),
  );
  await page.goto('http://drift.test/page');
  await page.addScriptTag({ content: await harness() });
  // iframes and custom elements render after load: wait until every truth element is there
  await page.waitForFunction(
    (ks) => ks.every((k) => targeting.deepAll(`html >>> [truth="${k}"]`).length === 1),
    keys,
    { timeout: 5000 },
  );
}

export async function runDrift(browser: Browser, pages: DriftPage[] = DRIFT_PAGES): Promise<DriftSummary> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const rows: DriftRow[] = [];
  try {
    for (const p of pages) {
      await load(
        page,
        p.html(0),
        p.steps.map((s) => s.key),
      );
      const authored = await page.evaluate((steps) => {
        return steps.map((s) => {
          const truth = targeting.deepAll(`html >>> [truth="${s.key}"]`)[0]!;
          const hits = targeting.deepAll(s.selector);
          return { unique: hits.length === 1 && hits[0] === truth, fp: targeting.fingerprint(truth) };
        });
      }, p.steps);
      const bad = p.steps.filter((_, i) => !authored[i]!.unique).map((s) => s.key);
      if (bad.length > 0)
        throw new Error(
          `${p.name}: authored selectors do not name their element on deploy 0: ${bad.join(', ')}`,
        );
      for (let d = 1; d <= 3; d++) {
        const present = p.steps.filter((s) => s.removedIn === undefined || d < s.removedIn);
        await load(
          page,
          p.html(d),
          present.map((s) => s.key),
        );
        const results = await page.evaluate(
          async ({ steps, fps }) => {
            const out = [];
            for (let i = 0; i < steps.length; i++) {
              const s = steps[i]!;
              const truth = targeting.deepAll(`html >>> [truth="${s.key}"]`)[0] ?? null;
              const t0 = performance.now();
              const r = await targeting.lookup(s.selector, fps[i], 250);
              out.push({
                exists: truth !== null,
                outcome: r?.outcome ?? 'cancelled',
                hit: r?.el ? (r.el === truth ? 'truth' : 'other') : 'none',
                confidence: r?.confidence,
                ms: performance.now() - t0,
              });
            }
            return out;
          },
          { steps: p.steps, fps: authored.map((a) => a.fp) },
        );
        results.forEach((r, i) => {
          const verdict: DriftRow['verdict'] = r.exists
            ? r.hit === 'truth'
              ? 'correct'
              : r.hit === 'other'
                ? 'wrong'
                : 'missed'
            : r.hit === 'none'
              ? 'reported-missing'
              : 'anchored-removed';
          rows.push({
            page: p.name,
            deploy: d,
            step: p.steps[i]!.key,
            exists: r.exists,
            outcome: r.outcome,
            verdict,
            confidence: r.confidence,
            ms: r.ms,
          });
        });
      }
    }
  } finally {
    await context.close();
  }
  const count = (v: DriftRow['verdict']) => rows.filter((r) => r.verdict === v).length;
  return {
    rows,
    steps: rows.filter((r) => r.exists).length,
    correct: count('correct'),
    wrong: count('wrong') + count('anchored-removed'),
    missed: count('missed'),
    removed: rows.filter((r) => !r.exists).length,
    removedReported: count('reported-missing'),
  };
}

export function printDrift(s: DriftSummary): string {
  const lines: string[] = [];
  const byPage = new Map<string, DriftRow[]>();
  for (const r of s.rows) byPage.set(r.page, [...(byPage.get(r.page) ?? []), r]);
  lines.push('page'.padEnd(46) + 'correct  wrong  missed  removed→missing');
  for (const [name, rs] of byPage) {
    const ex = rs.filter((r) => r.exists);
    const rm = rs.filter((r) => !r.exists);
    lines.push(
      name.padEnd(46) +
        `${rs.filter((r) => r.verdict === 'correct').length}/${ex.length}`.padEnd(9) +
        `${rs.filter((r) => r.verdict === 'wrong' || r.verdict === 'anchored-removed').length}`.padEnd(7) +
        `${rs.filter((r) => r.verdict === 'missed').length}`.padEnd(8) +
        `${rm.filter((r) => r.verdict === 'reported-missing').length}/${rm.length}`,
    );
  }
  const pct = ((100 * s.correct) / Math.max(1, s.steps)).toFixed(1);
  lines.push('');
  lines.push(
    `correct anchors: ${s.correct}/${s.steps} (${pct}%)   wrong anchors: ${s.wrong}   missed: ${s.missed}`,
  );
  lines.push(`removed elements reported missing/ambiguous: ${s.removedReported}/${s.removed}`);
  const outcomes = new Map<string, number>();
  for (const r of s.rows) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  lines.push(`outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const r of s.rows.filter((r) => r.verdict !== 'correct' && r.verdict !== 'reported-missing')) {
    lines.push(
      `  ${r.verdict}: ${r.page} deploy ${r.deploy} step ${r.step} (${r.outcome}, confidence ${r.confidence ?? '-'})`,
    );
  }
  return lines.join('\n');
}

/** The goals: ≥ 95% correct where the element exists, no wrong anchor, every removed element reported. */
export const driftGoalsMet = (s: DriftSummary): boolean =>
  s.correct >= 0.95 * s.steps && s.wrong === 0 && s.removedReported === s.removed;

if (import.meta.url === `file://${process.argv[1]}`) {
  const browser = await launch();
  try {
    const summary = await runDrift(browser);
    console.log(printDrift(summary));
    process.exitCode = driftGoalsMet(summary) ? 0 : 1;
  } finally {
    await browser.close();
  }
}
