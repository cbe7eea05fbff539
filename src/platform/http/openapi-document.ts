import { STATUS_CODES } from 'node:http';
import { errorCatalogue } from '../errors.js';

/**
 * The last pass over the generated document (pure: a document in, a document out):
 * - every error answer becomes a reference to a named response (`#/components/responses/NotFound`)
 *   whose description lists the codes of that status, all sharing the `Error` schema;
 * - the plugin's placeholder description "Default Response" becomes the status text;
 * - schemas nothing references are dropped (zod names an input and an output variant of every
 *   schema with an id, `ErrorInput` and `Error`; only the directions in use stay).
 */

export type OpenApiDocument = {
  paths?: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, unknown>;
    responses?: Record<string, unknown>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

export const ERROR_SCHEMA_REF = '#/components/schemas/Error';
const SCHEMAS = '#/components/schemas/';
const PLACEHOLDER_DESCRIPTION = 'Default Response';

/** Names and one-line meanings of the error responses, by status. */
const ERROR_RESPONSES: Record<string, { name: string; meaning: string }> = {
  '400': {
    name: 'BadRequest',
    meaning: 'The request is invalid (`details` lists each problem with its path).',
  },
  '401': { name: 'Unauthorized', meaning: 'Credentials are missing, invalid, expired or revoked.' },
  '402': { name: 'PaymentRequired', meaning: 'The AI token balance is exhausted.' },
  '403': { name: 'Forbidden', meaning: 'Authenticated, but the role or the plan does not allow this.' },
  '404': {
    name: 'NotFound',
    meaning: 'No such record in this tenant (unknown, malformed and other tenants’ ids alike).',
  },
  '409': { name: 'Conflict', meaning: 'The current state does not allow this.' },
  '410': { name: 'Gone', meaning: 'The link or token is no longer usable (expired or already used).' },
  '413': { name: 'PayloadTooLarge', meaning: 'The request body is over the size limit.' },
  '429': { name: 'TooManyRequests', meaning: 'A rate limit is spent; retry after `Retry-After` seconds.' },
  '500': { name: 'InternalError', meaning: 'The service failed.' },
  '503': { name: 'ServiceUnavailable', meaning: 'The service is unavailable.' },
  default: { name: 'UnexpectedError', meaning: 'Any other failure, in the same envelope.' },
};

const RATE_LIMIT_HEADERS = {
  'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

function codesFor(status: string): string[] {
  const all = errorCatalogue();
  const matching =
    status === 'default'
      ? all.filter((e) => e.statusCode >= 500)
      : all.filter((e) => String(e.statusCode) === status);
  return matching.map((e) => e.code);
}

function errorResponse(status: string) {
  const known = ERROR_RESPONSES[status];
  const name = known?.name ?? `Error${status}`;
  const codes = codesFor(status);
  const description = [
    known?.meaning ?? STATUS_CODES[Number(status)] ?? 'Error',
    codes.length > 0 ? `\`error.code\`: ${codes.map((c) => `\`${c}\``).join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    name,
    response: {
      description,
      ...(status === '429' ? { headers: RATE_LIMIT_HEADERS } : {}),
      content: { 'application/json': { schema: { $ref: ERROR_SCHEMA_REF } } },
    },
  };
}

type Response = { description?: string; content?: Record<string, { schema?: unknown }> };

const isErrorEnvelope = (response: Response) => {
  const media = Object.values(response.content ?? {});
  return (
    media.length > 0 &&
    media.every((m) => {
      const schema = m.schema as Record<string, unknown> | undefined;
      return schema?.$ref === ERROR_SCHEMA_REF && Object.keys(schema).length === 1;
    })
  );
};

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function forEachOperation(doc: OpenApiDocument, visit: (operation: Record<string, unknown>) => void) {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (HTTP_METHODS.has(method) && operation && typeof operation === 'object') {
        visit(operation as Record<string, unknown>);
      }
    }
  }
}

/** Every `$ref` string in a JSON value. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, into);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') into.add(v);
      else collectRefs(v, into);
    }
  }
}

/** Drops component schemas that nothing outside `components.schemas` reaches, directly or not. */
function pruneUnusedSchemas(doc: OpenApiDocument): void {
  const schemas = doc.components?.schemas;
  if (!schemas) return;
  const { schemas: _, ...rest } = doc.components!;
  const pending = new Set<string>();
  collectRefs({ ...doc, components: rest }, pending);
  const reached = new Set<string>();
  while (pending.size > 0) {
    const [ref] = pending;
    pending.delete(ref!);
    if (!ref!.startsWith(SCHEMAS) || reached.has(ref!)) continue;
    reached.add(ref!);
    const more = new Set<string>();
    collectRefs(schemas[ref!.slice(SCHEMAS.length)], more);
    for (const r of more) if (!reached.has(r)) pending.add(r);
  }
  for (const id of Object.keys(schemas)) if (!reached.has(SCHEMAS + id)) delete schemas[id];
}

export function finishDocument(input: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(input);
  const responses: Record<string, unknown> = { ...doc.components?.responses };
  forEachOperation(doc, (operation) => {
    const byStatus = operation.responses as Record<string, Response> | undefined;
    for (const [status, response] of Object.entries(byStatus ?? {})) {
      if (isErrorEnvelope(response)) {
        const { name, response: shared } = errorResponse(status);
        responses[name] = shared;
        byStatus![status] = { $ref: `#/components/responses/${name}` } as Response;
      } else if (response.description === PLACEHOLDER_DESCRIPTION) {
        response.description = STATUS_CODES[Number(status)] ?? 'Response';
      }
    }
    // By status, `default` last: routes declare theirs, the platform's are added after them.
    if (byStatus) operation.responses = sortedByKey(byStatus, statusOrder);
  });
  doc.components = { ...doc.components, responses: sortedByKey(responses) };
  pruneUnusedSchemas(doc);
  // In name order, not in the order modules happened to be imported.
  if (doc.components.schemas) doc.components.schemas = sortedByKey(doc.components.schemas);
  return doc;
}

/** `404` by number, a range such as `4XX` after its statuses, `default` last. */
const statusRank = (status: string) =>
  status === 'default' ? 1000 : /^\dXX$/i.test(status) ? Number(status[0]) * 100 + 99 : Number(status);
const statusOrder = (a: string, b: string) => statusRank(a) - statusRank(b);

function sortedByKey<T>(
  record: Record<string, T>,
  compare: (a: string, b: string) => number = (a, b) => a.localeCompare(b),
): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
