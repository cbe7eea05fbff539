/**
 * What the flow and content editors use of target health (issue 40): the health of a target under
 * its selector with the suggestion to apply, its badge, the notice when it mostly fails in the last
 * hour, and "Pick element". The "Needs attention" page is this feature's own (routes.tsx).
 */
export { BrokenNotice, HealthBadge, TargetHealthPanel, useTargetHealth } from './health-panel';
export { PickElement } from './pick-element';
export {
  brokenInLastHour,
  isTargetedContent,
  type Picked,
  pickedFingerprint,
  stepsNeedingAttention,
  type TargetedContent,
  type TargetHealth,
} from './target-health';
