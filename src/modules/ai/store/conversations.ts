import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { aiConversations, type ConversationMessage } from '../../../db/schema/index.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';

/** The queries of the assistant's conversations (`ai_conversations`). */

export type Conversation = typeof aiConversations.$inferSelect;

const ofTenant = (tenantId: string, id: string) =>
  and(eq(aiConversations.tenantId, tenantId), eq(aiConversations.id, id));

export async function findConversation(
  exec: Executor,
  tenantId: string,
  id: string,
): Promise<Conversation | undefined> {
  const [row] = await exec.select().from(aiConversations).where(ofTenant(tenantId, id)).limit(1);
  return row;
}

export async function insertConversation(
  exec: Executor,
  conversation: Omit<typeof aiConversations.$inferInsert, 'messages'> & { messages: ConversationMessage[] },
): Promise<Conversation> {
  const [row] = await exec.insert(aiConversations).values(conversation).returning();
  return row!;
}

/**
 * Appends `messages` atomically (concurrent questions in one conversation both land, in commit
 * order); undefined when the conversation is not the tenant's.
 */
export async function appendConversationMessages(
  exec: Executor,
  tenantId: string,
  id: string,
  messages: ConversationMessage[],
  now: Date,
): Promise<Conversation | undefined> {
  const [row] = await exec
    .update(aiConversations)
    .set({
      messages: sql`${aiConversations.messages} || ${JSON.stringify(messages)}::jsonb`,
      updatedAt: now,
    })
    .where(ofTenant(tenantId, id))
    .returning();
  return row;
}

/** The tenant's conversations, newest first. */
export function listConversationsPage(exec: Executor, tenantId: string, page: PageRequest) {
  const where = eq(aiConversations.tenantId, tenantId);
  return listPage(
    exec
      .select()
      .from(aiConversations)
      .where(where)
      .orderBy(desc(aiConversations.createdAt), desc(aiConversations.id)),
    exec.select({ n: count() }).from(aiConversations).where(where),
    page,
  );
}
