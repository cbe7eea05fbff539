/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard's layout rules (docs/dashboard.md), checked against the real imports: a feature is
 * one folder that others reach only through its index.ts; the app reaches a feature only through
 * its routes.tsx; the kit depends on no feature; and no source file grows past 200 lines.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
const sources = files(SRC).filter((f) => !/\.test\.tsx?$/.test(f) && !f.startsWith(join(SRC, 'test')));

/** Every relative import of a file, as a path under src/ (`features/audiences/rule-tree`). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) =>
    relative(SRC, resolve(dirname(file), m[1]!)).replace(/\\/g, '/'),
  );
}
const at = (file: string) => relative(SRC, file).replace(/\\/g, '/');
const featureOf = (path: string) => /^features\/([^/]+)/.exec(path)?.[1];

describe('the dashboard layout', () => {
  const graph = sources.map((f) => ({ file: at(f), imports: imports(f) }));

  it('reads a real import graph (features, kit, app)', () => {
    expect(graph.length).toBeGreaterThan(50);
    expect(graph.filter((g) => g.file.startsWith('features/')).length).toBeGreaterThan(40);
    expect(graph.find((g) => g.file === 'app/routes.tsx')?.imports).toContain('app/features');
  });

  it('a feature reaches another feature only through its index.ts', () => {
    const deep = graph
      .filter((g) => featureOf(g.file))
      .flatMap(({ file, imports }) =>
        imports
          .filter((i) => featureOf(i) && featureOf(i) !== featureOf(file))
          .filter((i) => !/^features\/[^/]+(\/index)?$/.test(i))
          .map((i) => `${file} -> ${i}`),
      );
    expect(deep).toEqual([]);
  });

  it('the app reaches a feature only through its routes.tsx', () => {
    const deep = graph
      .filter((g) => g.file.startsWith('app/'))
      .flatMap(({ file, imports }) =>
        imports
          .filter((i) => featureOf(i) && !/^features\/[^/]+\/routes$/.test(i))
          .map((i) => `${file} -> ${i}`),
      );
    expect(deep).toEqual([]);
  });

  it('the kit imports no feature, and of the app only the API client', () => {
    const wrong = graph
      .filter((g) => g.file.startsWith('kit/'))
      .flatMap(({ file, imports }) =>
        imports
          .filter((i) => i.startsWith('features/') || (i.startsWith('app/') && i !== 'app/api'))
          .map((i) => `${file} -> ${i}`),
      );
    expect(wrong).toEqual([]);
  });

  it('every feature with pages is in the app (features.ts imports its routes)', () => {
    const listed = graph.find((g) => g.file === 'app/features.ts')!.imports;
    const withRoutes = [
      ...new Set(graph.map((g) => g.file).filter((f) => /^features\/[^/]+\/routes\.tsx$/.test(f))),
    ];
    expect(withRoutes.map((f) => f.replace(/\.tsx$/, '')).sort()).toEqual(
      listed.filter((i) => i.startsWith('features/')).sort(),
    );
  });

  it('keeps every source file at 200 lines or fewer', () => {
    const long = sources
      .map((f) => ({ file: at(f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > 200);
    expect(long).toEqual([]);
  });
});
