import { useState } from 'react';
import { Button, FormError, Modal, TextArea } from '../../kit';
import { usePublish, type VersionTarget } from './versions-api';

/** "v3 live" and "Unpublished changes" next to an item's title. */
export function VersionBadges({
  version,
  hasUnpublishedChanges,
}: {
  version?: number | null;
  hasUnpublishedChanges?: boolean;
}) {
  return (
    <>
      {version ? <span className="badge badge-muted badge-version">v{version} live</span> : null}{' '}
      {hasUnpublishedChanges ? (
        <span className="badge badge-pending badge-version">Unpublished changes</span>
      ) : null}
    </>
  );
}

/** Publish with an optional note kept with the version; `onPublished` gets the new live version. */
export function PublishButton({
  target,
  label = 'Publish',
  onPublished,
}: {
  target: VersionTarget;
  label?: string;
  onPublished?(version: number | null | undefined): void;
}) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const publish = usePublish(target);
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal open={open} title={`Publish this ${target.noun}`} onClose={() => setOpen(false)}>
        <form
          className="modal-body"
          onSubmit={(e) => {
            e.preventDefault();
            publish.mutate(note, {
              onSuccess: (item) => {
                setOpen(false);
                setNote('');
                onPublished?.(item.version);
              },
            });
          }}
        >
          <p className="muted">Your users get what you publish at their next page load.</p>
          <TextArea
            label="Note (optional)"
            rows={2}
            maxLength={1000}
            placeholder="What changed, for the version history"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
          <FormError error={publish.error} />
          <div className="modal-actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button type="submit" variant="primary" busy={publish.isPending}>
              Publish
            </Button>
          </div>
        </form>
      </Modal>
    </>
  );
}

/** The editor's version state: the history dialog open, the version just published (its notice). */
export interface VersionUi {
  history: boolean;
  setHistory(open: boolean): void;
  published: number | null | undefined;
  setPublished(version: number | null | undefined): void;
  /** Counts restores and roll backs: a key for the editor's forms, which then start from the new working copy. */
  restored: number;
  onRestored(): void;
}
export function useVersionUi(): VersionUi {
  const [history, setHistory] = useState(false);
  const [published, setPublished] = useState<number | null>();
  const [restored, setRestored] = useState(0);
  return {
    history,
    setHistory,
    published,
    setPublished,
    restored,
    onRestored: () => setRestored((n) => n + 1),
  };
}
