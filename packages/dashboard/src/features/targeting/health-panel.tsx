import { useMutation, useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { Button, FormError, Notice } from '../../kit';
import { healthBadge, type TargetedContent, type TargetHealth, type TargetRef } from './target-health';

/** Whose target health to read: a flow's steps, or one tooltip or beacon. */
export type HealthSource = { flowId: string } | { type: TargetedContent; id: string };

/** The target health (7 days) of a flow's steps or of a tooltip / beacon, refreshed every minute. */
export function useTargetHealth(source: HealthSource, enabled = true) {
  return useQuery({
    queryKey:
      'flowId' in source ? ['target-health', source.flowId] : ['target-health', source.type, source.id],
    enabled,
    queryFn: async () =>
      'flowId' in source
        ? (await must(api.GET('/api/flows/{id}/target-health', { params: { path: { id: source.flowId } } })))
            .data
        : (
            await must(
              api.GET('/api/content/{type}/{id}/target-health', {
                params: { path: { type: source.type, id: source.id } },
              }),
            )
          ).data,
    refetchInterval: 60_000,
  });
}

/** Sets the target's selector to the suggestion the author saw (audited by the service). */
export const applySuggestedSelector = (target: TargetRef, suggestedSelector: string) =>
  target.kind === 'flow'
    ? must(
        api.POST('/api/flows/{id}/steps/{stepId}/apply-suggested-selector', {
          params: { path: { id: target.flowId, stepId: target.stepId } },
          body: { suggestedSelector },
        }),
      )
    : must(
        api.POST('/api/content/{type}/{id}/apply-suggested-selector', {
          params: { path: { type: target.type, id: target.id } },
          body: { suggestedSelector },
        }),
      );

export function HealthBadge({
  health,
  className = '',
}: {
  health: TargetHealth | undefined;
  className?: string;
}) {
  const badge = healthBadge(health);
  if (!badge) return null;
  return (
    <span className={`badge badge-${badge.tone} ${className}`} title={badge.detail}>
      {badge.label}
    </span>
  );
}

/** A target's health under its selector: badge, counts, and the suggested selector with "Apply". */
export function TargetHealthPanel({
  target,
  health,
  canEdit,
  onApplied,
}: {
  target: TargetRef;
  health: TargetHealth | undefined;
  canEdit: boolean;
  onApplied(): void;
}) {
  const apply = useMutation({
    mutationFn: (suggested: string) => applySuggestedSelector(target, suggested),
    onSuccess: onApplied,
  });
  if (!health) return null;
  return (
    <section className="target-health" aria-label="Target health">
      <HealthBadge health={health} />
      <span className="muted">
        7 days: {health.found} found · {health.healed} healed · {health.missing} missing · {health.ambiguous}{' '}
        ambiguous
      </span>
      {health.suggestedSelector ? (
        <>
          <span>
            Suggested: <code>{health.suggestedSelector}</code>
          </span>
          {canEdit ? (
            <Button onClick={() => apply.mutate(health.suggestedSelector!)} busy={apply.isPending}>
              Apply suggested selector
            </Button>
          ) : null}
        </>
      ) : null}
      <FormError error={apply.error} />
    </section>
  );
}

/** The red notice of targets whose lookups mostly fail in the last hour ("A step is", "This tooltip is"). */
export function BrokenNotice({ subject, plural = false }: { subject: string; plural?: boolean }) {
  return (
    <Notice kind="error">
      {subject} {plural ? 'are' : 'is'} mostly failing to find {plural ? 'their' : 'its'} element in the last
      hour: the customer's page changed.
    </Notice>
  );
}
