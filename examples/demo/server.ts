import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The demo host app's web server: static files from public/, every other path answered with
 * index.html (client-side routing), with `window.DEMO_CONFIG` written into it. It runs on its
 * own port, so the page's origin is not the guidance service's: the SDK works cross-origin, as
 * on a customer's site.
 */
const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface DemoConfig {
  serviceUrl: string;
  apiKey: string;
  userId?: string;
  traits?: Record<string, unknown>;
  locale?: string;
  setupFlowId?: string;
}

export interface DemoServer {
  url: string;
  close(): Promise<void>;
}

export async function startDemoServer(opts: {
  config: DemoConfig;
  port?: number;
  host?: string;
  /** Extra pages by exact path (full HTML), for tests. */
  pages?: Record<string, string>;
}): Promise<DemoServer> {
  const template = await readFile(join(PUBLIC, 'index.html'), 'utf8');
  const json = JSON.stringify(opts.config).replace(/</g, '\\u003c');
  const index = template.replace('<!--DEMO_CONFIG-->', `<script>window.DEMO_CONFIG = ${json};</script>`);
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://demo').pathname);
    const page = opts.pages?.[path];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-store' });
      res.end(page);
      return;
    }
    const ext = extname(path);
    if (ext && ext !== '.html') {
      const file = normalize(join(PUBLIC, path));
      if (!file.startsWith(PUBLIC)) return void res.writeHead(404).end();
      try {
        const body = await readFile(file);
        res.writeHead(200, {
          'content-type': TYPES[ext] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    res.writeHead(200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-store' });
    res.end(index);
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
