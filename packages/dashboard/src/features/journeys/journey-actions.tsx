import { Button } from '../../kit';
import type { Journey } from './journey-model';

export type Lifecycle = 'pause' | 'unpublish' | 'restore';

/** What a journey's status allows: pause, unpublish, restore; save the canvas and publish while editable. */
export function JourneyActions({
  status,
  editable,
  onLifecycle,
  onSave,
  saving,
  onPublish,
  publishing,
}: {
  status: Journey['status'];
  editable: boolean;
  onLifecycle(action: Lifecycle): void;
  onSave(): void;
  saving: boolean;
  onPublish(): void;
  publishing: boolean;
}) {
  return (
    <>
      {status === 'PUBLISHED' ? <Button onClick={() => onLifecycle('pause')}>Pause</Button> : null}
      {status === 'PUBLISHED' || status === 'PAUSED' ? (
        <Button onClick={() => onLifecycle('unpublish')}>Unpublish</Button>
      ) : null}
      {status === 'ARCHIVED' ? <Button onClick={() => onLifecycle('restore')}>Restore</Button> : null}
      {editable ? (
        <Button onClick={onSave} busy={saving}>
          Save canvas
        </Button>
      ) : null}
      {editable && status !== 'PUBLISHED' ? (
        <Button variant="primary" onClick={onPublish} busy={publishing}>
          Publish
        </Button>
      ) : null}
    </>
  );
}
