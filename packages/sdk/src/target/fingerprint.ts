/**
 * The fingerprint of an element (see `Fingerprint`): taken when a step's target is found, reported
 * to the service, and scored against the page's elements when its selector breaks. Reads the DOM
 * only (one layout read for the position); never changes the page.
 */
import { norm } from './deep.js';
import { isGenerated, isStableAttr, isStableClass } from './generated.js';
import type { Fingerprint } from './types.js';

export type { Fingerprint } from './types.js';

const cap = (s: string, n = 80): string | undefined => {
  const t = norm(s).slice(0, n);
  return t || undefined;
};

const FIELDS = /^(?:INPUT|SELECT|TEXTAREA)$/;
const HEADING = /^H[1-6]$/;

const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  search: 'searchbox',
  number: 'spinbutton',
};
const ROLES: Record<string, string> = {
  BUTTON: 'button',
  SELECT: 'combobox',
  TEXTAREA: 'textbox',
  NAV: 'navigation',
  MAIN: 'main',
  HEADER: 'banner',
  FOOTER: 'contentinfo',
  ASIDE: 'complementary',
  FORM: 'form',
  DIALOG: 'dialog',
  IMG: 'img',
  LI: 'listitem',
  UL: 'list',
  OL: 'list',
  TABLE: 'table',
  TR: 'row',
  TD: 'cell',
  TH: 'columnheader',
  SUMMARY: 'button',
  FIELDSET: 'group',
  OPTION: 'option',
  PROGRESS: 'progressbar',
};

/** The explicit role, else the tag's implicit one. */
export function roleOf(el: Element): string | undefined {
  const explicit = el.getAttribute('role')?.trim().split(/\s+/)[0];
  if (explicit) return explicit;
  const tag = el.tagName;
  if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href') ? 'link' : undefined;
  if (tag === 'INPUT') return INPUT_ROLES[(el as HTMLInputElement).type] ?? 'textbox';
  if (HEADING.test(tag)) return 'heading';
  if (tag === 'SECTION') return el.hasAttribute('aria-label') ? 'region' : undefined;
  return ROLES[tag];
}

/** Text of the elements whose ids an `aria-labelledby`-like attribute lists, in the same root. */
function byIds(el: Element, attr: string): string {
  const ids = el.getAttribute(attr);
  if (!ids) return '';
  const root = el.getRootNode() as Document | ShadowRoot;
  return ids
    .split(/\s+/)
    .map((id) => norm(root.getElementById?.(id)?.textContent))
    .join(' ');
}

/** A form field's label: `<label for>`, an enclosing `<label>`, aria-labelledby. */
export function labelOf(el: Element): string | undefined {
  if (!FIELDS.test(el.tagName)) return undefined;
  const labels = (el as HTMLInputElement).labels;
  const text =
    labels && labels.length > 0
      ? Array.from(labels, (l) => l.textContent).join(' ')
      : byIds(el, 'aria-labelledby');
  return cap(text);
}

/** The accessible name, simplified (aria-label, aria-labelledby, label, alt, text, title, placeholder). */
export function nameOf(el: Element, text = norm(el.textContent)): string | undefined {
  const field = FIELDS.test(el.tagName);
  const type = (el as HTMLInputElement).type;
  return cap(
    el.getAttribute('aria-label') ||
      byIds(el, 'aria-labelledby') ||
      (field ? labelOf(el) : '') ||
      el.getAttribute('alt') ||
      (field ? (INPUT_ROLES[type] === 'button' ? (el as HTMLInputElement).value : '') : text) ||
      el.getAttribute('title') ||
      el.getAttribute('placeholder') ||
      '',
  );
}

/** The parent across a shadow boundary (the host) — not across iframes. */
const up = (el: Element): Element | null =>
  el.parentElement ?? ((el.parentNode as ShadowRoot | null)?.host as Element | undefined) ?? null;

const LANDMARKS =
  /^(?:navigation|main|banner|contentinfo|complementary|form|dialog|region|search|group|tabpanel|menu|toolbar)$/;

/** The nearest landmark, form, dialog or named group around `el`: `form:Billing`. */
function landmarkOf(el: Element): string | undefined {
  for (let a = up(el), i = 0; a && i < 25; a = up(a), i++) {
    const role = roleOf(a);
    if (!role || !LANDMARKS.test(role)) continue;
    if (role === 'group' && a.tagName !== 'FIELDSET' && !a.hasAttribute('aria-label')) continue;
    const legend = a.tagName === 'FIELDSET' ? a.querySelector('legend')?.textContent : '';
    const id = a.id && !isGenerated(a.id) ? a.id : '';
    const name = norm(
      a.getAttribute('aria-label') || byIds(a, 'aria-labelledby') || legend || a.getAttribute('name') || id,
    ).slice(0, 40);
    return name ? `${role}:${name}` : role;
  }
  return undefined;
}

const isHeading = (e: Element) => HEADING.test(e.tagName) || e.getAttribute('role') === 'heading';

/** The nearest heading before `el`: its previous siblings' (or their last heading's), then its ancestors'. */
function headingOf(el: Element): string | undefined {
  for (let a: Element | null = el, depth = 0; a && depth < 6; a = up(a), depth++) {
    let s = a.previousElementSibling;
    for (let n = 0; s && n < 6; s = s.previousElementSibling, n++) {
      if (isHeading(s)) return cap(s.textContent ?? '');
      const inner = s.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]');
      if (inner.length > 0) return cap(inner[inner.length - 1]!.textContent ?? '');
    }
  }
  return undefined;
}

/** Text around `el`: its first ancestor (≤ 4 up) with more text than its own, without its own. */
function nearOf(el: Element, own: string): string | undefined {
  for (let a = up(el), i = 0; a && i < 4; a = up(a), i++) {
    if (a.tagName === 'BODY' || a.tagName === 'HTML') return undefined;
    const t = norm(a.textContent);
    if (t.length > own.length) return cap(own ? t.replace(own, ' ') : t, 100);
  }
  return undefined;
}

/** The shadow hosts and iframes between `el` and the top document, outermost first. */
function scopeOf(el: Element): string[] | undefined {
  const out: string[] = [];
  for (let root = el.getRootNode() as Document | ShadowRoot, i = 0; i < 10; i++) {
    const host: Element | null | undefined =
      'host' in root ? root.host : (root as Document).defaultView?.frameElement;
    if (!host) break;
    out.unshift(host.tagName.toLowerCase() + (host.id && !isGenerated(host.id) ? `#${host.id}` : ''));
    root = host.getRootNode() as Document | ShadowRoot;
  }
  return out.length > 0 ? out : undefined;
}

/** Page coordinates of `el` (through same-origin iframes). */
function rectOf(el: Element): [number, number, number, number] {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  let win: Window | null = el.ownerDocument.defaultView;
  for (let i = 0; win && win !== win.parent && i < 10; i++) {
    const frame = win.frameElement;
    if (!frame) break;
    const f = frame.getBoundingClientRect();
    x += f.left;
    y += f.top;
    win = win.parent;
  }
  const top = win ?? window;
  return [
    Math.round(x + top.scrollX),
    Math.round(y + top.scrollY),
    Math.round(r.width),
    Math.round(r.height),
  ];
}

/** Stable attributes of `el` (see isStableAttr). */
export function attrsOf(el: Element): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let any = false;
  for (const a of Array.from(el.attributes)) {
    let value = a.value.trim();
    if (a.name === 'href') value = value.replace(/^https?:\/\/[^/]+/, '').replace(/[?#].*$/, '');
    if (isStableAttr(a.name, value)) {
      out[a.name] = value;
      any = true;
    }
  }
  const type = (el as HTMLInputElement).type;
  if (el.tagName === 'INPUT' && INPUT_ROLES[type] === 'button' && (el as HTMLInputElement).value) {
    out.value = (el as HTMLInputElement).value.slice(0, 100);
    any = true;
  }
  return any ? out : undefined;
}

/** Stable class names of `el` (≤ 8). */
export const classesOf = (el: Element): string[] | undefined => {
  const list = Array.from(el.classList).filter(isStableClass).slice(0, 8);
  return list.length > 0 ? list : undefined;
};

/** Tag path from the document or shadow root (body and html left out), ≤ 12 tags. */
function pathOf(el: Element): string {
  const tags: string[] = [];
  for (let a: Element | null = el; a && tags.length < 12; a = a.parentElement) {
    if (a.tagName === 'BODY' || a.tagName === 'HTML') break;
    tags.unshift(a.tagName.toLowerCase());
  }
  return tags.join('>');
}

function indexOf(el: Element): number {
  let n = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) n++;
  return n;
}

/** The fingerprint of `el`. */
export function fingerprint(el: Element): Fingerprint {
  const text = norm(el.textContent);
  const fp: Fingerprint = { v: 1, tag: el.tagName.toLowerCase() };
  const set = <K extends keyof Fingerprint>(k: K, v: Fingerprint[K] | undefined) => {
    if (v !== undefined && v !== '') fp[k] = v;
  };
  set('role', roleOf(el));
  set('name', nameOf(el, text));
  set('text', cap(text));
  set('id', el.id && !isGenerated(el.id) ? el.id : undefined);
  set('attrs', attrsOf(el));
  set('classes', classesOf(el));
  set('label', labelOf(el));
  set('landmark', landmarkOf(el));
  set('heading', headingOf(el));
  set('near', nearOf(el, text));
  set('path', pathOf(el));
  set('index', indexOf(el));
  set('scope', scopeOf(el));
  set('rect', rectOf(el));
  return fp;
}

const lower = (s: string | undefined) => (s ? s.toLowerCase() : undefined);
const CONTROL =
  /^(?:button|link|textbox|searchbox|checkbox|radio|switch|combobox|listbox|slider|spinbutton|tab|menuitem|option)$/;

/**
 * Whether `fp` is a control (button, link, field, tab…): its text is its label, the same for
 * every user. Other elements' text (list items, cells, cards) is usually the user's data.
 */
export const isControl = (fp: Fingerprint): boolean => CONTROL.test(fp.role ?? '');

/** The id, test ids, `name`, `href` of `stored` that `fp` has otherwise (or lacks): a different element. */
export function contradicts(stored: Fingerprint, fp: Fingerprint): boolean {
  if (stored.id && fp.id !== stored.id) return true;
  for (const [k, v] of Object.entries(stored.attrs ?? {})) {
    if (
      /^(?:data-(?:testid|test-id|test|cy|qa|e2e|pw|automation-id)|name|href)$/.test(k) &&
      fp.attrs?.[k] !== v
    )
      return true;
  }
  return false;
}

const wordsOf = (s: string | undefined) => new Set((s ?? '').toLowerCase().split(/\W+/).filter(Boolean));

/**
 * A quick check that `fp` (the element the selector found) is the element `stored` describes:
 * same tag, no contradicting id / test id / name / href, the same label for a control, and
 * four fifths of its neighbouring words (not another row moved under the selector). When it is
 * not, the healing scorer decides.
 */
export function agrees(stored: Fingerprint, fp: Fingerprint): boolean {
  if (stored.tag !== fp.tag || contradicts(stored, fp)) return false;
  if (isControl(stored) && lower(stored.name ?? stored.text) !== lower(fp.name ?? fp.text)) return false;
  if (!stored.near) return true;
  const a = wordsOf(stored.near);
  const b = wordsOf(fp.near);
  let both = 0;
  for (const w of a) if (b.has(w)) both++;
  return both * 5 >= a.size * 4;
}
