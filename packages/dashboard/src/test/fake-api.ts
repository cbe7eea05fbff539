/**
 * The API as the component tests see it: `fetch` answered from routes a test declares
 * (`'POST /api/flows/:id/steps/reorder'`), every call recorded. A call no route answers fails
 * the test loudly (a 599 with the request named), so a test never passes on a request it did
 * not expect. The setup file installs `fakeFetch` before the app's API client is created.
 */

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** A route's answer: the JSON body (status 200), or `{ status, body }` for anything else. */
export type Answer = unknown | { status: number; body: unknown };
export type Routes = Record<
  string,
  (call: Call & { params: Record<string, string> }) => Answer | Promise<Answer>
>;

let routes: Routes = {};
export const calls: Call[] = [];

/** Declares the routes the next requests are answered from (and forgets the calls so far). */
export function fakeApi(next: Routes): Call[] {
  routes = next;
  calls.length = 0;
  return calls;
}

function match(pattern: string, method: string, path: string): Record<string, string> | undefined {
  const [m, p = ''] = pattern.split(' ');
  if (m !== method) return undefined;
  const want = p.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(got[i]!);
    else if (part !== got[i]) return undefined;
  }
  return params;
}

const isAnswer = (a: unknown): a is { status: number; body: unknown } =>
  typeof a === 'object' &&
  a !== null &&
  'status' in a &&
  typeof (a as { status: unknown }).status === 'number';

export async function fakeFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const text = await request.text();
  const call: Call = {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    body: text ? JSON.parse(text) : undefined,
  };
  calls.push(call);
  for (const [pattern, answer] of Object.entries(routes)) {
    const params = match(pattern, call.method, call.path);
    if (!params) continue;
    const a = await answer({ ...call, params });
    const { status, body } = isAnswer(a) ? a : { status: 200, body: a };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }
  const message = `no fake route for ${call.method} ${call.path}`;
  console.error(message);
  return new Response(JSON.stringify({ error: { code: 'TEST', message } }), {
    status: 599,
    headers: { 'content-type': 'application/json' },
  });
}

/** A page of a list as the API returns it. */
export const pageOf = <T>(data: T[], page = 1, total = data.length, limit = 20) => ({
  data,
  meta: { page, limit, total, totalPages: Math.max(1, Math.ceil(total / limit)) },
});
