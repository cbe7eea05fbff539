/** What the end-user pages call a user: its userId, else "Anonymous" (its anonymous id shown beside). */
export interface NamedEndUser {
  userId: string | null;
  anonymousId: string | null;
  traits: Record<string, unknown>;
}

export const displayName = (u: NamedEndUser) => u.userId ?? 'Anonymous';

/** A trait shown as text when it is a string or a number; undefined otherwise. */
export function traitText(traits: Record<string, unknown>, key: string): string | undefined {
  const v = traits[key];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

/** A trait's value as one line of text (objects and lists as JSON). */
export const valueText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
