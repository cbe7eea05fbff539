import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { classAllowed, classifyAddress } from './engine/address.js';
import { checkUrl, refusedMessage } from './engine/url.js';

/**
 * The network side of a delivery: resolving the endpoint's host, checking every address it
 * resolves to (engine/address.ts), and connecting to the checked address, not to a second
 * resolution of the name (DNS rebinding). Redirects are never followed: a 3xx is a failed attempt.
 */

/** Resolves a host name to every address (as `dns.lookup` with `all`). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface NetPolicy {
  allowPrivate: boolean;
  resolver: Resolver;
}

export type Target = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; message: string };

/** Checks the URL and the addresses its host resolves to; the answer names the address to connect to. */
export async function resolveTarget(text: string, policy: NetPolicy): Promise<Target> {
  const check = checkUrl(text, policy.allowPrivate);
  if (!check.ok) return check;
  if (check.literal !== null) {
    return { ok: true, url: check.url, address: check.literal, family: check.literal.includes(':') ? 6 : 4 };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await policy.resolver(check.url.hostname);
  } catch {
    return { ok: false, message: `host ${check.url.hostname} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, message: `host ${check.url.hostname} does not resolve` };
  for (const a of addresses) {
    const cls = classifyAddress(a.address) ?? 'reserved';
    if (!classAllowed(cls, policy.allowPrivate))
      return { ok: false, message: refusedMessage(a.address, cls) };
  }
  const first = addresses[0]!;
  return { ok: true, url: check.url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** What is kept of a receiver's answer. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptResult {
  status: number | null;
  body: string | null;
  error: string | null;
  latencyMs: number;
}

/** Posts `body` to the checked target, within `timeoutMs`; reads at most 1 kB of the answer. */
export function postTo(
  target: { url: URL; address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) {
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else cb(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    };
    const req = client.request(
      target.url,
      {
        method: 'POST',
        agent: false,
        lookup: pinned,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'guidance-webhooks/1',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () =>
          done({
            status: res.statusCode ?? null,
            body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
            error: null,
          });
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', finish);
        res.on('close', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => done({ status: null, body: null, error: err.message }));
    req.end(body);
  });
}
