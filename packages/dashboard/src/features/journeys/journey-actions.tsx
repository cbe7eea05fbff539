import { Button } from '../../kit';
import type { Journey } from './journey-model';

export type Lifecycle = 'pause' | 'unpublish' | 'restore';

/**
 * What a journey's status allows: pause, unpublish, restore; save the canvas (the working copy)
 * and publish it while editable ("Publish changes" on a published journey: the next version).
 */
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
      {editable ? (
        <Button variant="primary" onClick={onPublish} busy={publishing}>
          {status === 'PUBLISHED' ? 'Publish changes' : 'Publish'}
        </Button>
      ) : null}
    </>
  );
}
