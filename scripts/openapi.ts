import { readFile, writeFile } from 'node:fs/promises';
import {
  API_TYPES_FILE,
  formatProblems,
  generateApiTypes,
  lintDocument,
  loadDocument,
} from './openapi-tools.js';

/**
 * The OpenAPI document from the command line (the app is built, never listens):
 *   npm run generate:api-types        rewrite packages/api-types/index.d.ts
 *   npm run openapi:lint              Redocly lint with redocly.yaml; exits 1 on errors
 *   npm run openapi:dump > api.json   print the document
 * `generate:api-types -- --check` exits 1 when the committed declarations are out of date.
 */
async function main(command: string | undefined, flags: string[]): Promise<number> {
  if (command !== 'types' && command !== 'lint' && command !== 'dump') {
    console.error('usage: tsx scripts/openapi.ts types [--check] | lint | dump');
    return 2;
  }
  const document = await loadDocument();
  switch (command) {
    case 'types': {
      const types = await generateApiTypes(document);
      if (flags.includes('--check')) {
        const committed = await readFile(API_TYPES_FILE, 'utf8').catch(() => '');
        if (committed === types) return 0;
        console.error(`${API_TYPES_FILE} is out of date: run npm run generate:api-types`);
        return 1;
      }
      await writeFile(API_TYPES_FILE, types);
      console.error(`wrote ${API_TYPES_FILE}`);
      return 0;
    }
    case 'lint': {
      const result = await lintDocument(document);
      if (result.problems.length > 0) console.error(formatProblems(result.problems));
      console.error(`${result.errors} errors, ${result.warnings} warnings`);
      return result.errors === 0 ? 0 : 1;
    }
    case 'dump':
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return 0;
  }
}

process.exitCode = await main(process.argv[2], process.argv.slice(3));
