import { classAllowed, classifyAddress } from './address.js';

/** At most this long, as the endpoint's URL. */
export const MAX_URL_LENGTH = 2048;

export type UrlCheck =
  | {
      ok: true;
      url: URL /** An IP literal host, already checked; null: a name to resolve. */;
      literal: string | null;
    }
  | { ok: false; message: string };

/**
 * The first check of an endpoint URL, before any resolution: https (http too with
 * `allowPrivate`), no credentials, and an IP literal host (WHATWG URL parsing has already turned
 * decimal, octal and hex IPv4 forms into dotted decimal) in an allowed class.
 */
export function checkUrl(text: string, allowPrivate: boolean): UrlCheck {
  if (text.length > MAX_URL_LENGTH)
    return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return { ok: false, message: 'must use https' };
  }
  if (url.username || url.password) return { ok: false, message: 'must not carry credentials' };
  const host = url.hostname;
  if (!host) return { ok: false, message: 'must name a host' };
  const cls = classifyAddress(host);
  if (cls === null) {
    return { ok: true, url, literal: null };
  }
  if (!classAllowed(cls, allowPrivate)) return { ok: false, message: refusedMessage(host, cls) };
  return { ok: true, url, literal: host.replace(/^\[|\]$/g, '') };
}

export const refusedMessage = (address: string, cls: string): string =>
  `must not reach a ${cls} address (${address})`;
