import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A built file held in memory with its ETag: serving it costs no disk read and no hashing. */
export interface StaticAsset {
  body: Buffer;
  etag: string;
  contentType: string;
}

export interface StaticAssetOptions {
  /** Served extensions (with the dot) and their Content-Type; other files are not served. */
  contentTypes: Readonly<Record<string, string>>;
  /** Folders directly under `dir` that are not served (e.g. an npm build beside the browser one). */
  skipFolders?: ReadonlySet<string>;
}

/** Every servable file under `dir`, keyed by its path relative to it with `/` separators; empty when `dir` is not built. */
export function loadStaticAssets(dir: string, opts: StaticAssetOptions): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
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
        if (folder !== dir || !opts.skipFolders?.has(name)) walk(path);
        continue;
      }
      const dot = name.lastIndexOf('.');
      const contentType = dot < 0 ? undefined : opts.contentTypes[name.slice(dot)];
      if (!contentType) continue;
      const body = readFileSync(path);
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
      assets.set(relative(dir, path).split(sep).join('/'), { body, etag: `"${hash}"`, contentType });
    }
  };
  walk(dir);
  return assets;
}

/** Whether an `If-None-Match` header names this ETag (a list, weak forms and `*` included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  for (const raw of header.split(',')) {
    let tag = raw.trim();
    if (tag === '*') return true;
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}
