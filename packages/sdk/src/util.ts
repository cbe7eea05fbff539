/** Small helpers shared by the runtime. Nothing here may throw into the host page. */

export const VERSION = '0.1.0';

/** A random UUID v4 (crypto.randomUUID where available; older Safari lacks it). */
export function uuid(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  c.getRandomValues(b);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let warned = false;
let verbose = false;

/** Logs verbosely (`debug: true`) or not at all. */
export function setDebug(on: boolean): void {
  verbose = on;
}

export const isDebug = (): boolean => verbose;

/**
 * The SDK's only console output: one warning per page, whatever goes wrong afterwards (the host
 * page's console is not ours to fill); every warning with `debug: true`.
 */
export function warn(message: string, detail?: unknown): void {
  if (warned && !verbose) return;
  warned = true;
  console.warn(`[guidance] ${message}`, ...(detail === undefined ? [] : [detail]));
}

/** Runs `fn`, turning anything it throws (or rejects with) into a warning. */
export function guard<A extends unknown[], R>(
  fn: (...args: A) => R,
  what: string,
): (...args: A) => R | undefined {
  return (...args: A) => {
    try {
      const result = fn(...args);
      if (result instanceof Promise) {
        return result.catch((err: unknown) => {
          warn(`${what} failed`, err);
          return undefined;
        }) as R;
      }
      return result;
    } catch (err) {
      warn(`${what} failed`, err);
      return undefined;
    }
  };
}

const PREFIX = 'guidance:';

/** localStorage as JSON, tolerant of private modes and full quotas (then nothing is kept). */
export const store = {
  get<T>(key: string): T | undefined {
    try {
      const raw = localStorage.getItem(PREFIX + key);
      return raw === null ? undefined : (JSON.parse(raw) as T);
    } catch {
      return undefined;
    }
  },
  set(key: string, value: unknown): void {
    try {
      if (value === undefined) localStorage.removeItem(PREFIX + key);
      else localStorage.setItem(PREFIX + key, JSON.stringify(value));
    } catch {
      // storage unavailable or full: the value lives only in memory
    }
  },
};

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field of a loose object, else undefined. */
export const str = (o: unknown, key: string): string | undefined => {
  const v = isObject(o) ? o[key] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** A finite number field of a loose object, else undefined. */
export const num = (o: unknown, key: string): number | undefined => {
  const v = isObject(o) ? o[key] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** An http(s) URL (absolute, resolved against the page), else undefined: no javascript: links. */
export function safeUrl(u: string | undefined): string | undefined {
  if (!u) return undefined;
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Whether two URLs differ only in their #fragment (no page load between them). */
export const sameDocument = (a: string, b: string): boolean => a.split('#')[0] === b.split('#')[0];
