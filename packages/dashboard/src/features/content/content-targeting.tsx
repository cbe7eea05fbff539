import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  isTargetedContent,
  PickElement,
  type Picked,
  pickedFingerprint,
  TargetHealthPanel,
  useTargetHealth,
} from '../targeting';
import type { ContentItem } from './content-record';
import type { ContentType } from './content-types';

/**
 * A tooltip's or beacon's target (issue 40), as the flow editor has it for a step: the health of
 * its saved selector (7 days, refreshed every minute), and the element picked for it, whose
 * fingerprint is saved with the selector. No target for a new item (no id to pick for, no lookups
 * yet) or another content type.
 */
export function useContentTarget(
  type: ContentType,
  item: ContentItem | undefined,
  onSelector: (selector: string) => void,
) {
  const [picked, setPicked] = useState<Picked>();
  const targeted = item && isTargetedContent(type) ? { type, id: item.id } : undefined;
  const query = useTargetHealth(targeted ?? { type: 'tooltips', id: '' }, targeted !== undefined);
  const health = query.data?.[0];
  return {
    target: targeted && { kind: 'content' as const, ...targeted },
    // The health describes the saved selector; none while the answer is of an older one.
    health: health && health.targetSelector === item?.targetSelector ? health : undefined,
    onPicked: (p: Picked) => {
      onSelector(p.selector);
      setPicked(p);
    },
    /** `{ targetFingerprint }` when the selector to save is the one picked. */
    fingerprintFor: (selector: unknown) => pickedFingerprint(picked, String(selector)),
  };
}

/** Under the selector field: the health with "Apply suggested selector", and "Pick element". */
export function ContentTargetExtra({
  target,
  health,
  onPicked,
  noun,
  canEdit,
}: ReturnType<typeof useContentTarget> & { noun: string; canEdit: boolean }) {
  const client = useQueryClient();
  if (!target) return null;
  const onApplied = () => {
    void client.invalidateQueries({ queryKey: ['content', target.type] });
    void client.invalidateQueries({ queryKey: ['content-item', target.type] });
    void client.invalidateQueries({ queryKey: ['target-health'] });
  };
  return (
    <>
      <TargetHealthPanel target={target} health={health} canEdit={canEdit} onApplied={onApplied} />
      {canEdit ? <PickElement target={target} saveLabel={`the ${noun}`} onPicked={onPicked} /> : null}
    </>
  );
}
