import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, must } from '../../app/api';
import { moveItem } from '../../kit';
import {
  AUTO_START_CONTENT_TYPES,
  type AutoStartItem,
  byDeliveryOrder,
  contentStartsItself,
  flowStartsItself,
  priorityChanges,
} from './priority';

type Row = Record<string, unknown>;
const LIMIT = '100';

const itemOf = (kind: AutoStartItem['kind'], contentType: string | null, r: Row): AutoStartItem => ({
  kind,
  contentType,
  id: String(r.id),
  name: String(r.name ?? ''),
  status: String(r.status ?? ''),
  priority: typeof r.priority === 'number' ? r.priority : 0,
  bypassCaps: r.bypassCaps === true,
  publishedAt: typeof r.publishedAt === 'string' ? r.publishedAt : null,
  createdAt: String(r.createdAt ?? ''),
});

/** Every flow and content item that starts by itself (the first 100 of each list; archived ones left out), in delivery order. */
async function loadAutoStart(): Promise<AutoStartItem[]> {
  const [flows, ...content] = await Promise.all([
    must(api.GET('/api/flows', { params: { query: { limit: LIMIT } } })),
    ...AUTO_START_CONTENT_TYPES.map((type) =>
      must(
        api.GET(`/api/content/${type}` as '/api/content/tooltips', { params: { query: { limit: LIMIT } } }),
      ).then((res) => ({ type, rows: res.data as unknown as Row[] })),
    ),
  ]);
  const items = [
    ...(flows.data as unknown as Row[])
      .filter((f) => f.status !== 'ARCHIVED' && flowStartsItself(f))
      .map((f) => itemOf('flow', null, f)),
    ...content.flatMap(({ type, rows }) =>
      rows
        .filter((r) => r.status !== 'ARCHIVED' && contentStartsItself(type, r))
        .map((r) => itemOf('content', type, r)),
    ),
  ];
  return items.sort(byDeliveryOrder);
}

/** `PATCH` one flow or content item's delivery fields. */
async function patchItem(
  item: AutoStartItem,
  body: { priority?: number; bypassCaps?: boolean },
): Promise<void> {
  const path = { params: { path: { id: item.id } }, body };
  if (item.kind === 'flow') await must(api.PATCH('/api/flows/{id}', path));
  else await must(api.PATCH(`/api/content/${item.contentType}/{id}` as '/api/content/tooltips/{id}', path));
}

export const AUTO_START_KEY = ['delivery', 'auto-start'] as const;

/**
 * The priority list's state: the items in the order shown (a move shows at once), `move(from,
 * to)` that saves the priorities making that order the service's (one PATCH per changed item),
 * and `setBypass`. When a save fails, the saved order comes back with the error.
 */
export function useAutoStart() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: AUTO_START_KEY, queryFn: loadAutoStart });
  const [order, setOrder] = useState<AutoStartItem[]>([]);
  useEffect(() => setOrder(list.data ?? []), [list.data]);
  const refresh = () => client.invalidateQueries({ queryKey: AUTO_START_KEY });
  const reorder = useMutation({
    mutationFn: async (next: AutoStartItem[]) => {
      for (const { item, priority } of priorityChanges(next)) await patchItem(item, { priority });
    },
    onError: () => setOrder(list.data ?? []),
    onSettled: refresh,
  });
  const bypass = useMutation({
    mutationFn: ({ item, on }: { item: AutoStartItem; on: boolean }) => patchItem(item, { bypassCaps: on }),
    onSettled: refresh,
  });
  const move = (from: number, to: number) => {
    const next = moveItem(order, from, to);
    if (!next) return;
    setOrder(next);
    reorder.mutate(next);
  };
  return {
    list,
    items: order,
    move,
    setBypass: (item: AutoStartItem, on: boolean) => bypass.mutate({ item, on }),
    saving: reorder.isPending || bypass.isPending,
    error: reorder.error ?? bypass.error,
  };
}
