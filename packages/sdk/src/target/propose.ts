/**
 * The selector the element picker proposes, and the one the SDK suggests for an element it
 * healed to: what survives the customer's deploys first. In order: a test id (`data-testid`…),
 * another stable `data-*`, an `id` that does not look generated, `aria-label`, a form field's
 * `name`, a custom element's tag, role + name (`button::-p-text(Save)`), `placeholder` / `title` /
 * `alt` / `href`, then a short structural path from the nearest ancestor that has one of those
 * (stable classes before `:nth-of-type`). Never a hashed class; `>>>` only to cross a shadow root or an iframe. Every
 * proposal is checked: it matches exactly this element.
 */
import { DEEP, deepAll, norm } from './deep.js';
import { classesOf, roleOf } from './fingerprint.js';

/** Roles whose text is their name, the same for every user: role + name selectors use them. */
const NAMED =
  /^(?:button|link|tab|menuitem|menuitemcheckbox|menuitemradio|option|checkbox|radio|switch|heading|treeitem|columnheader)$/;

import { isGenerated, isStableAttr, TEST_ATTRS } from './generated.js';

const quote = (v: string) => `"${v.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
const esc = (s: string) =>
  typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(s) : s.replace(/[^\w-]/g, '\\$&');
const tagOf = (el: Element) => el.tagName.toLowerCase();

type Root = Document | ShadowRoot;

/** Elements of `root` (its own tree only) that `css` matches; [] when invalid. */
function inRoot(root: Root, css: string): Element[] {
  try {
    const [sel, text] = splitText(css);
    const all = Array.from(root.querySelectorAll(sel));
    return text === null ? all : all.filter((e) => norm(e.textContent).toLowerCase() === text);
  } catch {
    return [];
  }
}

function splitText(css: string): [string, string | null] {
  const m = /^(.*)::-p-text\("(.*)"\)$/s.exec(css);
  return m ? [m[1]!, norm(m[2]!.replace(/\\(.)/g, '$1')).toLowerCase()] : [css, null];
}

const unique = (root: Root, css: string, el: Element) => {
  const hits = inRoot(root, css);
  return hits.length === 1 && hits[0] === el;
};

/** Selectors naming `el` by what it is (no structure), best first; not checked for uniqueness. */
export function ownSelectors(el: Element): string[] {
  const tag = tagOf(el);
  const out: string[] = [];
  for (const a of TEST_ATTRS) {
    const v = el.getAttribute(a);
    if (v && isStableAttr(a, v)) out.push(`[${a}=${quote(v)}]`);
  }
  for (const a of Array.from(el.attributes)) {
    if (a.name.startsWith('data-') && !TEST_ATTRS.includes(a.name) && isStableAttr(a.name, a.value)) {
      out.push(`${tag}[${a.name}=${quote(a.value)}]`);
    }
  }
  if (el.id && !isGenerated(el.id)) out.push(`#${esc(el.id)}`);
  for (const a of ['aria-label', 'name']) {
    const v = el.getAttribute(a);
    if (v && isStableAttr(a, v)) out.push(`${tag}[${a}=${quote(v)}]`);
  }
  // a custom element's name is its component's
  if (tag.includes('-')) out.push(tag);
  // role + name: a control's or a heading's words (not a price or a user's data in a span)
  const text = norm(el.textContent);
  const role = roleOf(el) ?? '';
  if (NAMED.test(role) && /\p{L}/u.test(text) && text.length <= 40 && el.childElementCount <= 3) {
    const explicit = el.getAttribute('role');
    out.push(`${explicit ? `[role=${quote(explicit)}]` : tag}::-p-text(${quote(text)})`);
  }
  for (const a of ['placeholder', 'title', 'alt', 'href']) {
    const v = el.getAttribute(a);
    if (v && v.length <= 80 && isStableAttr(a, v)) out.push(`${tag}[${a}=${quote(v)}]`);
  }
  return out;
}

/** A short selector for `el` unique in its own root (document or shadow root), else null. */
export function localSelector(el: Element): string | null {
  const root = el.getRootNode() as Root;
  for (const css of ownSelectors(el)) if (unique(root, css, el)) return css;
  // A short path from the nearest ancestor (≤ 4 up) named by what it is, or a unique landmark tag.
  const steps: string[] = [];
  for (let cur: Element | null = el, depth = 0; cur && depth < 5; cur = cur.parentElement, depth++) {
    steps.unshift(stepOf(cur));
    const parent = cur.parentElement;
    if (!parent || parent.tagName === 'BODY' || parent.tagName === 'HTML') break;
    const anchors = [...ownSelectors(parent).filter((c) => !c.includes('::-p-text')), tagOf(parent)];
    for (const anchor of anchors) {
      const css = `${anchor} > ${steps.join(' > ')}`;
      if (inRoot(root, anchor).length === 1 && unique(root, css, el)) return css;
    }
  }
  const css = steps.join(' > ');
  return unique(root, css, el) ? css : fullPath(el);
}

/** The last resort: the :nth-of-type path from the root. */
function fullPath(el: Element): string | null {
  const steps: string[] = [];
  for (let cur: Element | null = el; cur && cur.tagName !== 'HTML'; cur = cur.parentElement) {
    steps.unshift(cur.tagName === 'BODY' ? 'body' : stepOf(cur));
  }
  const css = steps.join(' > ');
  return unique(el.getRootNode() as Root, css, el) ? css : null;
}

/** One step of a structural path: the tag, stable classes when they tell siblings apart, else :nth-of-type. */
function stepOf(el: Element): string {
  const tag = tagOf(el);
  const parent = el.parentElement;
  if (!parent) return tag;
  const same = Array.from(parent.children).filter((c) => c.tagName === el.tagName);
  if (same.length === 1) return tag;
  const classes = classesOf(el) ?? [];
  for (const c of classes) {
    const sel = `${tag}.${esc(c)}`;
    if (same.filter((s) => s.classList.contains(c)).length === 1) return sel;
  }
  return `${tag}:nth-of-type(${same.indexOf(el) + 1})`;
}

/** The host of `el`'s root: its shadow host or its iframe element (same origin), else null. */
function hostOf(el: Element): Element | null {
  const root = el.getRootNode() as Root;
  if ('host' in root) return root.host;
  try {
    return (root as Document).defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

/**
 * The selector to propose for `el`: its local selector, prefixed by its hosts' (shadow roots,
 * iframes) with `>>>`; checked against the deep resolver from the top document. Null when no
 * unique selector could be made.
 */
export function propose(el: Element): string | null {
  const parts: string[] = [];
  for (let cur: Element | null = el, i = 0; cur && i < 10; cur = hostOf(cur), i++) {
    const local = localSelector(cur);
    if (!local) return null;
    parts.unshift(local);
  }
  const selector = parts.join(` ${DEEP} `);
  const top = topDocument(el);
  const hits = deepAll(selector, top);
  return hits.length === 1 && hits[0] === el ? selector : null;
}

function topDocument(el: Element): Document {
  let doc = el.ownerDocument;
  for (let i = 0; i < 10; i++) {
    const frame = doc.defaultView?.frameElement;
    if (!frame) break;
    doc = frame.ownerDocument;
  }
  return doc;
}
