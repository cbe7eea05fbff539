import { Button } from '../../kit';
import type { VersionAction, VersionTarget } from './versions-api';

/** What a restore or a roll back will do, in words, with the button that does it. */
export function ConfirmAction({
  target,
  action,
  busy,
  hasUnpublishedChanges,
  onConfirm,
  onCancel,
}: {
  target: VersionTarget;
  action: VersionAction;
  busy: boolean;
  hasUnpublishedChanges?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const n = action.version;
  const rollback = action.kind === 'rollback';
  const what = rollback
    ? `Version ${n} is published again as a new version and your users get it at once.`
    : target.draftless
      ? `The ${target.noun} becomes as it was in version ${n}, at once (a new version is recorded).`
      : `The working copy becomes version ${n}; nothing changes for your users until you publish.`;
  return (
    <section
      className="card pad confirm"
      role="alertdialog"
      aria-label={rollback ? 'Confirm roll back' : 'Confirm restore'}
    >
      <p>
        <strong>{rollback ? `Roll back to version ${n}?` : `Restore version ${n}?`}</strong> {what}
        {hasUnpublishedChanges && !target.draftless ? ' Your unpublished changes are replaced.' : ''}
      </p>
      <div className="form-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant={rollback ? 'danger' : 'primary'} busy={busy} onClick={onConfirm}>
          {rollback ? `Roll back to v${n}` : `Restore v${n}`}
        </Button>
      </div>
    </section>
  );
}
