import { uuidv7 } from 'uuidv7';

export const newId = (): string => uuidv7();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are opaque: anything that is not a uuid simply matches no record (DECISIONS §1). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);
