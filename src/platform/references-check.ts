import { validationError } from './errors.js';
import { isUuid } from './ids.js';

/**
 * For body fields that point at another record of the same tenant (audienceId, flowId): the
 * lookup answers whether it exists; a missing one is a 400 naming the field, never a 404.
 */
export async function assertReference(
  id: string,
  path: string,
  what: string,
  exists: (id: string) => Promise<boolean>,
): Promise<void> {
  if (!isUuid(id) || !(await exists(id))) {
    throw validationError([{ path, message: `${what} ${id} does not exist in this tenant` }]);
  }
}
