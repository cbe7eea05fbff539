import { Button } from '../../kit';
import { PublishButton, type VersionTarget, type VersionUi } from '../versions';

export type ContentAction = 'publish' | 'unpublish' | 'restore' | 'archive';

/** What an item is once an action is done ("the tooltip is now …"). */
export const DONE: Record<ContentAction, string> = {
  publish: 'published',
  unpublish: 'a draft',
  archive: 'archived',
  restore: 'restored',
};

/**
 * The version history, and the lifecycle buttons an item's status allows: archive or restore,
 * unpublish, and publish (with a note) a draft or scheduled item, or a published one's
 * unpublished changes.
 */
export function ContentActions({
  status,
  canEdit,
  hasUnpublishedChanges,
  target,
  ui,
  onAction,
}: {
  status: string;
  canEdit: boolean;
  hasUnpublishedChanges?: boolean;
  target: VersionTarget;
  ui: VersionUi;
  onAction(action: ContentAction): void;
}) {
  const history = <Button onClick={() => ui.setHistory(true)}>History</Button>;
  if (!canEdit) return history;
  return (
    <>
      {history}
      {status === 'ARCHIVED' ? (
        <Button onClick={() => onAction('restore')}>Restore</Button>
      ) : (
        <Button variant="danger" onClick={() => onAction('archive')}>
          Archive
        </Button>
      )}
      {status === 'PUBLISHED' ? <Button onClick={() => onAction('unpublish')}>Unpublish</Button> : null}
      {status === 'DRAFT' || status === 'SCHEDULED' || (status === 'PUBLISHED' && hasUnpublishedChanges) ? (
        <PublishButton target={target} onPublished={ui.setPublished} />
      ) : null}
    </>
  );
}
