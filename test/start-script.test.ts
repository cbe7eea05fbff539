import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start` is `scripts/start.sh`: the Node flags it picks per database (bench/README.md,
 * "Resident memory" and "Hand-over queue and young generation"). A stand-in `node` first on the
 * PATH prints what it was started with instead of serving.
 */
describe('scripts/start.sh', () => {
  const bin = mkdtempSync(join(tmpdir(), 'guidance-start-'));
  writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "args: $*"\necho "mmap: [$MALLOC_MMAP_THRESHOLD_]"\n');
  chmodSync(join(bin, 'node'), 0o755);
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  const start = (env: Record<string, string>) => {
    const {
      DATABASE_URL: _url,
      NODE_OPTIONS: _options,
      MALLOC_MMAP_THRESHOLD_: _mmap,
      ...inherited
    } = process.env;
    return execFileSync('sh', ['scripts/start.sh'], {
      encoding: 'utf8',
      env: { ...inherited, PATH: `${bin}:${process.env.PATH}`, ...env },
    });
  };

  it('on PostgreSQL: 32 MiB semi-spaces and nothing of the embedded database', () => {
    const out = start({ DATABASE_URL: 'postgres://db.example/guidance' });
    expect(out).toContain('args: --max-semi-space-size=32 dist/main.js');
    expect(out).toContain('mmap: []');
  });

  it('embedded: 8 MiB semi-spaces, no baseline WebAssembly compiler, a 1 GiB old space, a fixed mmap threshold', () => {
    const out = start({});
    expect(out).toContain(
      'args: --max-semi-space-size=8 --no-liftoff --max-old-space-size=1024 dist/main.js',
    );
    expect(out).toContain('mmap: [131072]');
  });

  it("embedded: an operator's old-space ceiling and mmap threshold win", () => {
    const out = start({ NODE_OPTIONS: '--max-old-space-size=2048', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(out).toContain('args: --max-semi-space-size=8 --no-liftoff dist/main.js');
    expect(out).toContain('mmap: [65536]');
  });
});
