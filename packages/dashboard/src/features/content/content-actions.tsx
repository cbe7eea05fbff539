import { Button } from '../../kit';

export type ContentAction = 'publish' | 'unpublish' | 'restore' | 'archive';

/** What an item is once an action is done ("the tooltip is now …"). */
export const DONE: Record<ContentAction, string> = {
  publish: 'published',
  unpublish: 'a draft',
  archive: 'archived',
  restore: 'restored',
};

/** The lifecycle buttons an item's status allows: archive or restore, unpublish, publish. */
export function ContentActions({
  status,
  busy,
  onAction,
}: {
  status: string;
  busy: boolean;
  onAction(action: ContentAction): void;
}) {
  return (
    <>
      {status === 'ARCHIVED' ? (
        <Button onClick={() => onAction('restore')}>Restore</Button>
      ) : (
        <Button variant="danger" onClick={() => onAction('archive')}>
          Archive
        </Button>
      )}
      {status === 'PUBLISHED' ? <Button onClick={() => onAction('unpublish')}>Unpublish</Button> : null}
      {status === 'DRAFT' || status === 'SCHEDULED' ? (
        <Button variant="primary" onClick={() => onAction('publish')} busy={busy}>
          Publish
        </Button>
      ) : null}
    </>
  );
}
