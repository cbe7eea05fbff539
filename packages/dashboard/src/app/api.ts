import type { components, paths } from '@guidance/api-types';
import createClient, { type Middleware } from 'openapi-fetch';

/**
 * The dashboard's API client: openapi-fetch over the service's generated OpenAPI types
 * (`@guidance/api-types`), same origin, session by the HttpOnly cookie. A 401 on a dashboard
 * route tries one refresh (the refresh cookie) and replays the request; when that fails too,
 * `onSignedOut` sends the user to the sign-in page.
 */

export type Schemas = components['schemas'];
export type Role = 'OWNER' | 'ADMIN' | 'EDITOR' | 'VIEWER';
export type ErrorBody = Schemas['Error']['error'];
export interface FieldError {
  path: string;
  message: string;
}

/** An API error: the envelope's code and message, and per-field messages from `details[]`. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fields: FieldError[];
  /** `details` as the API sent it (publish validation adds `nodeId` to each entry). */
  readonly details: unknown;
  constructor(status: number, body: Partial<ErrorBody> | undefined) {
    super(body?.message ?? `Request failed (${status})`);
    this.details = body?.details;
    this.status = status;
    this.code = body?.code ?? 'INTERNAL_ERROR';
    this.fields = Array.isArray(body?.details)
      ? (body.details as unknown[]).flatMap((d) =>
          d && typeof d === 'object' && 'path' in d && 'message' in d
            ? [{ path: String(d.path).replace(/^body\./, ''), message: String(d.message) }]
            : [],
        )
      : [];
  }
  /** The message the API gave for `path` (or a path under it). */
  field(path: string): string | undefined {
    return this.fields.find((f) => f.path === path || f.path.startsWith(`${path}.`))?.message;
  }
}

let signedOutHandler: () => void = () => undefined;
export function onSignedOut(handler: () => void): void {
  signedOutHandler = handler;
}

const NO_REFRESH = /^\/api\/auth\/(login|register|refresh|password-reset|invites\/accept|google)/;
let refreshing: Promise<boolean> | undefined;

function refreshOnce(): Promise<boolean> {
  refreshing ??= fetch('/api/auth/refresh', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => {
      setTimeout(() => {
        refreshing = undefined;
      }, 0);
    });
  return refreshing;
}

const sessionMiddleware: Middleware = {
  async onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status !== 401 || NO_REFRESH.test(path)) return response;
    if (await refreshOnce()) {
      const retry = await fetch(request.clone());
      if (retry.status !== 401) return retry;
    }
    signedOutHandler();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(sessionMiddleware);

/** Awaits an openapi-fetch call: its data, or throws the ApiError of its envelope. */
export async function must<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) {
    throw new ApiError(response.status, (error as { error?: ErrorBody } | undefined)?.error);
  }
  return data as NonNullable<T>;
}

/** Statuses of a publishable record, as the API names them. */
export type Status = 'DRAFT' | 'PUBLISHED' | 'SCHEDULED' | 'ARCHIVED';

export const PAGE_SIZE = 20;
