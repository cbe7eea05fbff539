import pluralize from 'pluralize';

/**
 * OpenAPI operationIds derived from the method and the path alone, so that a route gets the same
 * id on every boot and in every generated client without anyone choosing a name:
 *
 *   GET    /api/flows                    getFlows
 *   GET    /api/flows/:id                getFlow          (a segment before a parameter is singular)
 *   GET    /api/flows/:id/steps          getFlowSteps
 *   DELETE /api/flows/:id/steps/:stepId  deleteFlowStep
 *   POST   /api/flows/:id/publish        postFlowPublish
 *   POST   /api/auth/password-reset/request  postAuthPasswordResetRequest
 *
 * The leading `/api` is dropped, parameters are dropped (their names never matter), the other
 * segments are split on `-`, `_` and `.` and capitalised. A route may set `schema.operationId`
 * itself; the app refuses to start when two operations end up with the same id.
 */

const PARAM = /^(:.+|\{.+\}|\*)$/;
const WORD_SEPARATOR = /[-_.]+/;
export const OPERATION_ID_PATTERN = /^[a-z][a-zA-Z0-9]*$/;

const isParam = (segment: string) => PARAM.test(segment);

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

export function deriveOperationId(method: string, url: string): string {
  const segments = url.split('?')[0]!.split('/').filter(Boolean);
  if (segments[0] === 'api') segments.shift();
  const words: string[] = [];
  segments.forEach((segment, i) => {
    if (isParam(segment)) return;
    const next = segments[i + 1];
    const noun = next !== undefined && isParam(next) ? pluralize.singular(segment) : segment;
    for (const part of noun.split(WORD_SEPARATOR)) {
      const alnum = part.replace(/[^A-Za-z0-9]/g, '');
      if (alnum) words.push(capitalise(alnum));
    }
  });
  return method.toLowerCase() + (words.length > 0 ? words.join('') : 'Root');
}

/**
 * Hands out ids and refuses duplicates, naming both routes: a clash must stop the boot, not
 * surface later as a generated client with one of two functions missing.
 */
export function createOperationIdRegistry() {
  const owners = new Map<string, string>();
  return {
    claim(method: string, url: string, explicit?: unknown): string {
      if (explicit !== undefined && (typeof explicit !== 'string' || !OPERATION_ID_PATTERN.test(explicit))) {
        throw new Error(`route ${method} ${url}: operationId ${JSON.stringify(explicit)} is not camelCase`);
      }
      const id = explicit ?? deriveOperationId(method, url);
      const route = `${method} ${url}`;
      const owner = owners.get(id);
      if (owner !== undefined && owner !== route) {
        throw new Error(
          `operationId "${id}" of ${route} is already used by ${owner}: set a distinct schema.operationId on one of them`,
        );
      }
      owners.set(id, route);
      return id;
    },
  };
}

export type OperationIdRegistry = ReturnType<typeof createOperationIdRegistry>;
