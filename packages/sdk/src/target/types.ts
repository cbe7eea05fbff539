/**
 * The targeting contract between the SDK and the service (issue 40). Types only: nothing here
 * adds code to a bundle. Until the service's OpenAPI document describes them, they are written
 * here; `wire.ts` will alias them once it does.
 */

/**
 * What the SDK remembers of a step's target element, to find it again after the customer's
 * deploys renamed its classes, wrapped it or moved it. Reported with `TARGET_LOOKUP` (outcome
 * `found` or `healed`), stored by the service per step (the one seen most often, or the one the
 * element picker sent), and served back as `targetFingerprint` on flow steps and targeted content
 * items. Every string is normalized (whitespace collapsed, trimmed) and capped; hashed or
 * generated class names, ids and attribute values are never recorded.
 */
export interface Fingerprint {
  /** Format version (1). */
  v: 1;
  /** Tag name, lower case: `button`. */
  tag: string;
  /** Explicit `role`, else the implicit one of the tag (`button`, `link`, `textbox`, …). */
  role?: string;
  /** Accessible name: aria-label, aria-labelledby, the field's label, alt, text, title, placeholder (≤ 80). */
  name?: string;
  /** Visible text (text content, ≤ 80). */
  text?: string;
  /** The element's `id`, unless it looks generated. */
  id?: string;
  /**
   * Stable attributes: `name`, `type`, `href`, `placeholder`, `title`, `alt`, `for`, `role`,
   * `aria-label`, `value` (buttons), test ids and other `data-*` (values ≤ 100), none generated.
   */
  attrs?: Record<string, string>;
  /** Class names that are neither hashed (CSS modules, styled-components, emotion…) nor utilities (Tailwind…), ≤ 8. */
  classes?: string[];
  /** Text of a form field's `<label>`. */
  label?: string;
  /** Nearest landmark or form: `navigation`, `main`, `form:Billing`, `dialog:Settings`… */
  landmark?: string;
  /** Text of the nearest heading before the element. */
  heading?: string;
  /** Text around the element (its row, list item or group, without its own text; ≤ 100). */
  near?: string;
  /** Tag path from the document or shadow root: `body>div>main>form>button` (≤ 12 tags). */
  path?: string;
  /** 1-based position among siblings of the same tag. */
  index?: number;
  /** Shadow hosts and iframes crossed, outermost first (`settings-panel`, `iframe#editor`). */
  scope?: string[];
  /** Page position and size when recorded: x, y, width, height (CSS pixels). */
  rect?: [number, number, number, number];
}

/** A target lookup's outcome, as `TARGET_LOOKUP` reports it. */
export type LookupOutcome = 'found' | 'healed' | 'ambiguous' | 'missing';

/** `POST /api/sdk/pick/verify` → 200: the pick token's binding. */
export interface PickVerifyResponse {
  data: { stepId: string | null; itemKind: 'flow' | 'content'; itemId: string; expiresAt: string };
}

/** `POST /api/sdk/pick/result` body (→ 204). */
export interface PickResultRequest {
  token: string;
  selector: string;
  fingerprint: Fingerprint;
}
