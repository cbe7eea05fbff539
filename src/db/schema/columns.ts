import { timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by every domain's tables. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const created = () => ts('created_at').notNull().defaultNow();
export const updated = () => ts('updated_at').notNull().defaultNow();
