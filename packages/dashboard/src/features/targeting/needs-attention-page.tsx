import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Crumb, DataTable, FormError, formatDate, Loading, Notice, Page } from '../../kit';
import { applySuggestedSelector, HealthBadge } from './health-panel';
import { editorPath, type TargetAttention, targetOf } from './target-health';

/**
 * "Needs attention" (issue 40): every step and tooltip / beacon whose lookups mostly fail, in the
 * last hour first, with the suggested selector to apply in one click.
 */
export default function NeedsAttentionPage() {
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const list = useQuery({
    queryKey: ['target-health', 'needs-attention'],
    queryFn: async () => (await must(api.GET('/api/target-health/needs-attention'))).data,
    refetchInterval: 60_000,
  });
  const apply = useMutation({
    mutationFn: (e: TargetAttention) => applySuggestedSelector(targetOf(e)!, e.suggestedSelector!),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['target-health'] }),
  });
  const rows = list.data ?? [];
  const hour = rows.filter((e) => e.attention === 'hour');
  return (
    <Page
      title={
        <Crumb to="/flows" list="Flows">
          Needs attention
        </Crumb>
      }
      description="Flow steps, tooltips and beacons whose element the SDK mostly fails to find on your pages (last hour, or 7 days)."
    >
      {list.isPending ? <Loading /> : null}
      <FormError error={list.error ?? apply.error} />
      {hour.length > 0 ? (
        <Notice kind="error">
          {hour.length === 1 ? 'One target is' : `${hour.length} targets are`} mostly failing in the last
          hour.
        </Notice>
      ) : null}
      {apply.isSuccess ? <Notice kind="success">Suggested selector applied.</Notice> : null}
      {list.isSuccess ? (
        <div className="card">
          <DataTable<TargetAttention>
            label="Targets that need attention"
            rows={rows}
            rowKey={(e) => e.stepId ?? e.itemId}
            emptyRow="Every target is found. Nothing needs attention."
            columns={[
              {
                name: 'Where',
                cell: (e) => {
                  const target = targetOf(e);
                  const name = e.itemKind === 'flow' ? `${e.itemName}, step ${e.order + 1}` : e.itemName;
                  return target ? <Link to={editorPath(target)}>{name}</Link> : name;
                },
              },
              { name: 'Kind', cell: (e) => kindOf(e), cellStyle: NOWRAP },
              { name: 'Selector', cell: (e) => <code>{e.targetSelector}</code> },
              { name: 'Health', cell: (e) => <HealthBadge health={e} /> },
              {
                name: 'When',
                cell: (e) => (e.attention === 'hour' ? 'Last hour' : '7 days'),
                cellStyle: NOWRAP,
              },
              { name: 'Missing', num: true, cell: (e) => e.missing + e.ambiguous },
              { name: 'Found', num: true, cell: (e) => e.found + e.healed },
              { name: 'Last seen', cell: (e) => (e.lastSeenAt ? formatDate(e.lastSeenAt) : '—') },
              {
                name: 'Suggested selector',
                cell: (e) =>
                  e.suggestedSelector ? (
                    <>
                      <code>{e.suggestedSelector}</code>{' '}
                      {canEdit && targetOf(e) ? (
                        <Button onClick={() => apply.mutate(e)} busy={apply.isPending}>
                          Apply
                        </Button>
                      ) : null}
                    </>
                  ) : (
                    <span className="muted">none: pick the element again</span>
                  ),
              },
            ]}
          />
        </div>
      ) : null}
    </Page>
  );
}

const NOWRAP = { whiteSpace: 'nowrap' } as const;
const KINDS: Record<string, string> = { tooltips: 'Tooltip', beacons: 'Beacon' };
const kindOf = (e: TargetAttention) =>
  e.itemKind === 'flow' ? 'Flow step' : (KINDS[e.contentType ?? ''] ?? e.contentType ?? 'Content');
