import { fileURLToPath } from 'node:url';
import { loadStaticAssets, type StaticAsset } from '../../platform/http/static-assets.js';

/**
 * The browser SDK's served files (`packages/sdk/dist`: `guidance.js`, lazy chunks, source maps),
 * read into memory once with their ETags. The npm build (`dist/esm`, `dist/types`) is for
 * bundlers and is not served.
 */

export const SDK_DIST_DIR = fileURLToPath(new URL('../../../packages/sdk/dist/', import.meta.url));

export type SdkAsset = StaticAsset;

export const loadSdkAssets = (dir: string = SDK_DIST_DIR): Map<string, SdkAsset> =>
  loadStaticAssets(dir, {
    contentTypes: {
      '.js': 'application/javascript; charset=utf-8',
      '.map': 'application/json; charset=utf-8',
    },
    skipFolders: new Set(['esm', 'types']),
  });
