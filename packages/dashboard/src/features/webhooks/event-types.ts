/** The event types an endpoint may subscribe to (the service's list; docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  { type: 'flow.published', label: 'Flow published' },
  { type: 'flow.completed', label: 'Flow completed' },
  { type: 'flow.dismissed', label: 'Flow dismissed' },
  { type: 'survey.responded', label: 'Survey or NPS answered' },
  { type: 'journey.enrolled', label: 'Journey enrolled' },
  { type: 'journey.exited', label: 'Journey exited' },
  { type: 'experiment.completed', label: 'Experiment completed' },
  { type: 'end_user.deleted', label: 'End user deleted' },
  { type: 'target.broken', label: 'Target broken' },
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]['type'];

/** The selection with `type` switched on or off, in the list's order. */
export function toggled(selected: readonly string[], type: string, on: boolean): WebhookEventType[] {
  const next = new Set(selected);
  if (on) next.add(type);
  else next.delete(type);
  return WEBHOOK_EVENT_TYPES.map((e) => e.type).filter((t) => next.has(t));
}
