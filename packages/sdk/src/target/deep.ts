/**
 * Deep selectors: CSS selectors joined by `>>>`, Puppeteer's deep combinator, which crosses open
 * shadow roots and same-origin iframes (`settings-panel >>> button.save`, `iframe#editor >>>
 * .toolbar`). A part may end in `::-p-text(Save)` (Puppeteer's text selector): the elements it
 * matches whose text is `Save` (whitespace collapsed, any case). An invalid selector matches
 * nothing; nothing here throws.
 */

export const DEEP = '>>>';

/** `a  b\n c` → `a b c`. */
export const norm = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

type Scope = Document | ShadowRoot | Element;

/** The open shadow root or the same-origin iframe document of `el`, if any. */
export function innerRoot(el: Element): Document | ShadowRoot | null {
  if (el.shadowRoot) return el.shadowRoot;
  if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
    try {
      return (el as HTMLIFrameElement).contentDocument;
    } catch {
      return null; // another origin
    }
  }
  return null;
}

/**
 * Calls `visit` with every element under `scope`, in document order, entering open shadow roots
 * and same-origin iframes (after the host's light children). `visit` answering false skips that
 * element's subtree.
 */
export function walk(scope: Scope, visit: (el: Element) => boolean | undefined): void {
  const stack: Element[] = [];
  const push = (parent: ParentNode) => {
    const kids = parent.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  };
  const start = (s: Scope) => {
    if ('documentElement' in s) {
      if (s.documentElement) stack.push(s.documentElement);
    } else push(s);
  };
  start(scope);
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (visit(el) === false) continue;
    const inner = innerRoot(el);
    if (inner) start(inner);
    push(el);
  }
}

/** Splits `sel::-p-text(Text)` into the CSS part and the text (null when there is none). */
function parsePart(part: string): [string, string | null] {
  const m = /^(.*?)::-p-text\((.*)\)$/s.exec(part);
  if (!m) return [part, null];
  let text = m[2]!.trim();
  if (/^(["']).*\1$/s.test(text)) text = text.slice(1, -1).replace(/\\(.)/g, '$1');
  return [m[1]!.trim() || '*', norm(text).toLowerCase()];
}

function select(scope: Scope, css: string, text: string | null, deep: boolean, out: Set<Element>): void {
  const add = (s: Scope) => {
    for (const el of Array.from(s.querySelectorAll(css))) {
      if (text === null || norm(el.textContent).toLowerCase() === text) out.add(el);
    }
  };
  add(scope);
  if (!deep) return;
  walk(scope, (el) => {
    const inner = innerRoot(el);
    if (inner) add(inner);
    return true;
  });
}

/**
 * Every element `selector` matches, in document order: the first part in `root`'s light DOM, each
 * part after a `>>>` anywhere under the previous part's matches (their light children, shadow
 * roots and iframe documents, at any depth). [] for an invalid selector.
 */
export function deepAll(selector: string, root: Document = document): Element[] {
  try {
    const parts = selector.split(DEEP).map((p) => p.trim());
    if (parts.some((p) => !p)) return [];
    let scopes: Scope[] = [root];
    let found = new Set<Element>();
    parts.forEach((part, i) => {
      const [css, text] = parsePart(part);
      found = new Set();
      for (const s of scopes) select(s, css, text, i > 0, found);
      scopes = [];
      for (const el of found) {
        const inner = innerRoot(el);
        scopes.push(...(inner ? [inner, el] : [el]));
      }
    });
    return [...found];
  } catch {
    return [];
  }
}

/** The first element `selector` matches (see deepAll), else null. */
export const deepQuery = (selector: string): Element | null => deepAll(selector)[0] ?? null;

/** Every open shadow root and same-origin iframe document under `scope` (for observers). */
export function innerRoots(scope: Scope): (Document | ShadowRoot)[] {
  const roots: (Document | ShadowRoot)[] = [];
  walk(scope, (el) => {
    const inner = innerRoot(el);
    if (inner) roots.push(inner);
    return true;
  });
  return roots;
}
