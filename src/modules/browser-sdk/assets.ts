import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The browser SDK's served files (`packages/sdk/dist`: `guidance.js`, lazy chunks, source maps),
 * read into memory once with their ETags: serving them costs no disk read and no hashing.
 * The npm build (`dist/esm`, `dist/types`) is for bundlers and is not served.
 */

export const SDK_DIST_DIR = fileURLToPath(new URL('../../../packages/sdk/dist/', import.meta.url));

export interface SdkAsset {
  body: Buffer;
  etag: string;
  contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
const NOT_SERVED = new Set(['esm', 'types']);

function contentTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot)];
}

/** Every servable file under `dir`, keyed by its path relative to it with `/` separators. */
export function loadSdkAssets(dir: string = SDK_DIST_DIR): Map<string, SdkAsset> {
  const assets = new Map<string, SdkAsset>();
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
        if (folder !== dir || !NOT_SERVED.has(name)) walk(path);
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
