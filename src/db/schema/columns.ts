import { sql } from 'drizzle-orm';
import { check, timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by every domain's tables. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const created = () => ts('created_at').notNull().defaultNow();
export const updated = () => ts('updated_at').notNull().defaultNow();

/** `check (<column> in (<values>))`, from the constant that lists the values (the migrations hold the same list; the drift test compares them). */
export const checkOneOf = (name: string, column: string, values: readonly string[]) =>
  check(name, sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`));
