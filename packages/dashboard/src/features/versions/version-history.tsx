import { useState } from 'react';
import { useSession } from '../../app/session';
import { Button, DataTable, formatDate, Loading, Modal, Notice } from '../../kit';
import { ConfirmAction } from './confirm-action';
import { usePublishers } from './publishers';
import type { VersionUi } from './version-bar';
import { Compare, VersionView } from './version-view';
import {
  useVersionAction,
  useVersions,
  type VersionAction,
  type VersionSummary,
  type VersionTarget,
  versionErrorText,
} from './versions-api';

type Shown = { view: number } | { diff: readonly [number, number] } | undefined;

/**
 * An item's version history in a wide dialog: every version (number, note, who, when, which is
 * live), view one, compare any two, restore one to the working copy or roll back to it (publish
 * it again as the next version) after a confirmation. Audiences: restore applies at once.
 */
export function VersionHistory({
  target,
  open,
  onClose,
  hasUnpublishedChanges,
  canEdit,
  onRestored,
}: {
  target: VersionTarget;
  open: boolean;
  onClose(): void;
  hasUnpublishedChanges?: boolean;
  canEdit: boolean;
  onRestored?(): void;
}) {
  return (
    <Modal open={open} title="Version history" onClose={onClose} wide>
      <div className="modal-body">
        <History
          target={target}
          hasUnpublishedChanges={hasUnpublishedChanges}
          canEdit={canEdit}
          onRestored={onRestored}
        />
      </div>
    </Modal>
  );
}

export function History({
  target,
  hasUnpublishedChanges,
  canEdit,
  onRestored,
}: {
  target: VersionTarget;
  hasUnpublishedChanges?: boolean;
  canEdit: boolean;
  onRestored?(): void;
}) {
  const versions = useVersions(target);
  const who = usePublishers();
  const me = useSession();
  const action = useVersionAction(target);
  const [asking, setAsking] = useState<VersionAction>();
  const [shown, setShown] = useState<Shown>();
  if (versions.isPending) return <Loading label="Loading versions" />;
  if (versions.isError) return <Notice kind="error">{versionErrorText(versions.error)}</Notice>;
  const list = versions.data;
  if (list.length === 0)
    return <p className="muted">No versions yet: publishing the {target.noun} takes its first version.</p>;
  const current = target.draftless ? list[0]!.version : list.find((v) => v.live)?.version;
  // The version the working copy already is: nothing to restore.
  const sameAsWorkingCopy = target.draftless ? list[0]!.version : hasUnpublishedChanges ? undefined : current;
  const byWhom = (id: string | null) =>
    id === null ? 'Scheduler' : id === me.user.id ? 'You' : (who.get(id) ?? 'A former member');
  const done = action.isSuccess ? action.variables : undefined;
  return (
    <div className="versions">
      {hasUnpublishedChanges && canEdit ? (
        <Notice kind="warning">
          The working copy has unpublished changes: restoring or rolling back replaces them.
        </Notice>
      ) : null}
      {done ? (
        <Notice kind="success">
          {done.kind === 'restore'
            ? target.draftless
              ? `Version ${done.version} restored: the ${target.noun} is as it was then.`
              : `Version ${done.version} restored to the working copy: publish to make it live.`
            : `Rolled back: version ${done.version} is live again (as version ${list[0]!.version}).`}
        </Notice>
      ) : null}
      {action.isError ? (
        <Notice kind="error">{versionErrorText(action.error, action.variables)}</Notice>
      ) : null}
      <DataTable<VersionSummary>
        label="Versions"
        rows={list}
        rowKey={(v) => String(v.version)}
        columns={[
          {
            name: 'Version',
            cell: (v) => (
              <>
                <strong>v{v.version}</strong>{' '}
                {v.version === current ? (
                  <span className="badge badge-published">{target.draftless ? 'current' : 'live'}</span>
                ) : null}
              </>
            ),
          },
          { name: 'Note', cell: (v) => v.note ?? <span className="muted">—</span> },
          { name: 'Published by', cell: (v) => byWhom(v.publishedBy) },
          { name: target.draftless ? 'Saved' : 'Published', cell: (v) => formatDate(v.publishedAt) },
          {
            name: 'Actions',
            header: <span className="sr-only">Actions</span>,
            cellClass: 'version-actions',
            cell: (v) => (
              <>
                <Button variant="ghost" onClick={() => setShown({ view: v.version })}>
                  View<span className="sr-only"> version {v.version}</span>
                </Button>
                {canEdit && v.version !== sameAsWorkingCopy ? (
                  <Button variant="ghost" onClick={() => setAsking({ kind: 'restore', version: v.version })}>
                    Restore<span className="sr-only"> version {v.version}</span>
                  </Button>
                ) : null}
                {canEdit && !target.draftless && v.version !== current ? (
                  <Button variant="ghost" onClick={() => setAsking({ kind: 'rollback', version: v.version })}>
                    Roll back<span className="sr-only"> to version {v.version}</span>
                  </Button>
                ) : null}
              </>
            ),
          },
        ]}
      />
      {asking ? (
        <ConfirmAction
          target={target}
          action={asking}
          busy={action.isPending}
          hasUnpublishedChanges={hasUnpublishedChanges}
          onCancel={() => setAsking(undefined)}
          onConfirm={() => {
            action.mutate(asking, { onSuccess: () => onRestored?.() });
            setAsking(undefined);
          }}
        />
      ) : null}
      <Compare versions={list} onCompare={(pair) => setShown({ diff: pair })} />
      {shown ? <VersionView target={target} shown={shown} /> : null}
    </div>
  );
}

/** What an editor shows of versions under its title: the history dialog and "published: vN is live". */
export function ItemVersions({
  target,
  ui,
  hasUnpublishedChanges,
  canEdit,
}: {
  target: VersionTarget;
  ui: VersionUi;
  hasUnpublishedChanges?: boolean;
  canEdit: boolean;
}) {
  return (
    <>
      <VersionHistory
        target={target}
        open={ui.history}
        onClose={() => ui.setHistory(false)}
        hasUnpublishedChanges={hasUnpublishedChanges}
        canEdit={canEdit}
        onRestored={ui.onRestored}
      />
      {ui.published ? (
        <Notice kind="success">
          Published: version {ui.published} of the {target.noun} is live.
        </Notice>
      ) : null}
    </>
  );
}
