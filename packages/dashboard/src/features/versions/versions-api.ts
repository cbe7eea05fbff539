import type { operations, paths } from '@guidance/api-types';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, must } from '../../app/api';

/**
 * The versions API of one item, whatever its kind: a flow (`/api/flows`), a content item
 * (`/api/content/<type>`) or an audience (`/api/audiences`). The routes are the same under each
 * collection, so the calls are typed by the flows' paths and sent under the item's own.
 */
export interface VersionTarget {
  /** The item's collection path: `/api/flows`, `/api/content/tooltips`, `/api/audiences`. */
  base: string;
  id: string;
  /** What the item is called in sentences: "flow", "tooltip", "audience". */
  noun: string;
  /** Audiences have no draft: every change is a version, a restore applies at once, no roll back. */
  draftless?: boolean;
  /** The query keys the item's page reads (refetched after a restore, a roll back or a publish). */
  itemKeys: readonly (readonly unknown[])[];
}

/** A flow's versions path, typed as the flows' and sent under the target's collection. */
const at = <P extends keyof paths & `/api/flows/${string}`>(t: VersionTarget, p: P) =>
  p.replace('/api/flows', t.base) as P;

/** The `data` of an operation's 200 answer, as the generated OpenAPI types have it. */
type DataOf<O extends keyof operations> = operations[O]['responses'] extends {
  200: { content: { 'application/json': { data: infer D } } };
}
  ? D
  : never;

export type VersionSummary = DataOf<'getFlowVersions'>[number];
export type VersionDetail = DataOf<'getFlowVersion'>;
export type VersionDiff = DataOf<'getFlowVersionDiff'>;
export type CollectionDiff = VersionDiff['collections'][string];
export type FieldChange = VersionDiff['fields'][number];

const path = (t: VersionTarget, n?: number) => ({ params: { path: { id: t.id, n: n ?? 0 } } });

export const versionsKey = (t: VersionTarget) => ['versions', t.base, t.id] as const;

export function useVersions(t: VersionTarget) {
  return useQuery({
    queryKey: versionsKey(t),
    queryFn: async () => (await must(api.GET(at(t, '/api/flows/{id}/versions'), path(t)))).data,
  });
}

export function useVersion(t: VersionTarget, n: number | undefined) {
  return useQuery({
    queryKey: [...versionsKey(t), 'view', n],
    enabled: n !== undefined,
    queryFn: async () => (await must(api.GET(at(t, '/api/flows/{id}/versions/{n}'), path(t, n)))).data,
  });
}

export function useDiff(t: VersionTarget, pair: readonly [number, number] | undefined) {
  return useQuery({
    queryKey: [...versionsKey(t), 'diff', pair?.[0], pair?.[1]],
    enabled: pair !== undefined,
    queryFn: async () =>
      (
        await must(
          api.GET(at(t, '/api/flows/{id}/versions/{a}/diff/{b}'), {
            params: { path: { id: t.id, a: pair![0], b: pair![1] } },
          }),
        )
      ).data,
  });
}

/** Refetches what a change of versions changes: the history and the item's page. */
function useRefresh(t: VersionTarget) {
  const client = useQueryClient();
  // Awaited (a mutation's onSuccess promise is): the page's forms restart from the new item.
  return () =>
    Promise.all([versionsKey(t), ...t.itemKeys].map((queryKey) => client.invalidateQueries({ queryKey })));
}

export type VersionAction = { kind: 'restore' | 'rollback'; version: number };

/** Restore a version to the working copy, or roll back (publish it as the next version). */
export function useVersionAction(t: VersionTarget) {
  const refresh = useRefresh(t);
  return useMutation({
    mutationFn: async ({ kind, version }: VersionAction) =>
      kind === 'restore'
        ? must(api.POST(at(t, '/api/flows/{id}/versions/{n}/restore'), path(t, version)))
        : must(api.POST(at(t, '/api/flows/{id}/versions/{n}/publish'), { ...path(t, version), body: {} })),
    onSuccess: refresh,
  });
}

/** Publish the working copy with an optional note; answers the item (its new `version`). */
export function usePublish(t: VersionTarget) {
  const refresh = useRefresh(t);
  return useMutation({
    mutationFn: async (note: string) => {
      const body = note.trim() ? { note: note.trim() } : {};
      const res = await must(
        api.POST(at(t, '/api/flows/{id}/publish'), { params: { path: { id: t.id } }, body }),
      );
      return res.data as { version?: number | null };
    },
    onSuccess: refresh,
  });
}

/** An error of a version call in words: a 409 is "nothing to do", not a failure. */
export function versionErrorText(error: unknown, action?: VersionAction): string | undefined {
  if (!error) return undefined;
  if (error instanceof ApiError && error.status === 409) {
    if (action?.kind === 'rollback')
      return `Nothing to do: version ${action.version} is what is live already.`;
    return `Nothing to do: ${error.message}`;
  }
  if (error instanceof ApiError && error.status === 404) return 'That version no longer exists.';
  return error instanceof Error ? error.message : String(error);
}
