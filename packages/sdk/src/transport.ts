import type { EventsRequest, SdkEvent } from './wire.js';

export interface Reply<T> {
  /** HTTP status; 0 when the request never got an answer (network down, CORS refused, timeout). */
  status: number;
  body?: T;
  retryAfter?: string | null;
}

const TIMEOUT_MS = 15_000;

/**
 * The service's SDK API: `X-API-Key` on every request, never cookies (`credentials: 'omit'`:
 * the SDK routes answer CORS `*`). Never throws: failures come back as a status.
 */
export class Api {
  constructor(
    readonly base: string,
    private readonly apiKey: string,
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply<T>> {
    const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
    const timer = setTimeout(() => controller?.abort(), TIMEOUT_MS);
    try {
      const headers: Record<string, string> = { 'x-api-key': this.apiKey };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        signal: controller?.signal,
      });
      let parsed: T | undefined;
      try {
        parsed = (await res.json()) as T;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
    } catch {
      return { status: 0 };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `navigator.sendBeacon` for a page being hidden or unloaded: the browser sends it even after
   * the page is gone. It cannot set headers, so the key travels as `_apiKey` in the body (the
   * service strips it), and the body is a string (text/plain: no preflight).
   */
  beacon(events: SdkEvent[]): boolean {
    try {
      const body: EventsRequest = { events, _apiKey: this.apiKey };
      return navigator.sendBeacon?.(`${this.base}/api/sdk/events`, JSON.stringify(body)) ?? false;
    } catch {
      return false;
    }
  }
}
