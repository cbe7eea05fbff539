import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard's built files (`packages/dashboard/dist`, `npm run build:dashboard`), read into
 * memory once with their ETags: serving costs no disk read and no hashing. Source maps are served
 * too (the code is open source).
 */

export const DASHBOARD_DIST_DIR = fileURLToPath(
  new URL('../../../packages/dashboard/dist/', import.meta.url),
);

export interface DashboardAsset {
  body: Buffer;
  etag: string;
  contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function contentTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot)];
}

/** Every servable file under `dir`, keyed by its path relative to it with `/` separators. */
export function loadDashboardAssets(dir: string = DASHBOARD_DIST_DIR): Map<string, DashboardAsset> {
  const assets = new Map<string, DashboardAsset>();
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return; // not built (yet)
    }
    for (const name of names) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const contentType = contentTypeOf(name);
      if (!contentType) continue;
      const body = readFileSync(path);
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
      assets.set(relative(dir, path).split(sep).join('/'), { body, etag: `"${hash}"`, contentType });
    }
  };
  walk(dir);
  return assets;
}
