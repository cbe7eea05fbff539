/**
 * Which names on a customer's page say what an element IS, and which are a build's accident:
 * hashed class names (CSS modules `Button_save__a1b2c`, styled-components `sc-bdVaJa kKfXrT`,
 * emotion `css-1x2y3z-Save`, Svelte `svelte-1abc2de`, styled-jsx `jsx-123`), generated ids
 * (React `:r1:` / `«r1»`, Radix, Headless UI, MUI, Angular Material, Ember, record numbers),
 * and utility or state classes (Tailwind, Bootstrap, `is-active`, Angular's `ng-*`) that change
 * with styling and say nothing of identity. Fingerprints, the healing scorer and the proposed
 * selectors all ignore them.
 */

/** Test-id attributes, the strongest identity a page offers, best first. */
export const TEST_ATTRS = [
  'data-testid',
  'data-test-id',
  'data-test',
  'data-cy',
  'data-qa',
  'data-e2e',
  'data-pw',
  'data-automation-id',
];

/** Generators' prefixes whose ids end in a counter (`radix-:r1:`, `mat-input-3`, `ember42`). */
const LIB =
  /^(?:radix|headlessui|mui|mat|cdk|ext-gen|ext-comp|downshift|react-aria|reach|chakra|rc|ui-id|yui|el-id|tippy|floating-ui|base-ui|pr_id|pv_id|useid)[-_:].*\d|^(?:ember|yui_|ext-gen)\d+$/i;
/** Prefixes of CSS-in-JS and scoped-CSS classes. */
const HASHED = /^(?:css|sc|jsx|svelte|emotion|astro|jss|makeStyles)-|^e\d[a-z0-9]{4,}$/;
const CAMEL = /^[a-z]*(?:[A-Z][a-z]*[aeiouy][a-z]*)*$/;

/** One part of a name (split at `-`, `_`) that reads as a hash or a counter. */
function randomPart(p: string): boolean {
  if (p.length >= 5 && /\d/.test(p) && /[a-z]/i.test(p)) return true; // a1b2c, 1x2y3z, 8f3a2c9d
  if (/^\d{3,}$/.test(p)) return true; // record numbers: item-12345
  // mixed-case letters that are not camelCase words: kKfXrT, xKqPz, bZkfAO
  return (
    p.length >= 5 && /[a-z]/.test(p) && /[A-Z]/.test(p.slice(1)) && !CAMEL.test(p) && !/^[A-Z]+$/.test(p)
  );
}

/** A name (class, id, attribute value) that a build or a runtime generated. */
export function isGenerated(name: string): boolean {
  if (!name || name.length > 60 || /[:«»\s]/.test(name)) return true;
  if (/^\d/.test(name) || /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(name)) return true;
  if (HASHED.test(name) || LIB.test(name)) return true;
  return name.split(/[-_]+/).some(randomPart);
}

/** Utility-class prefixes (Tailwind, Bootstrap): a utility when its value is a number, a size or a keyword. */
const UTILITY =
  /^-?(?:[pm][xytblrse]?|w|h|size|min-[wh]|max-[wh]|gap(?:-[xy])?|space-[xy]|text|font|leading|tracking|bg|from|to|via|border(?:-[xytblrse])?|rounded(?:-[a-z]+)?|shadow|ring(?:-offset)?|outline|divide(?:-[xy])?|inset(?:-[xy])?|top|right|bottom|left|start|end|z|order|col(?:-span|-start|-end)?|row(?:-span|-start|-end)?|grid-cols|grid-rows|flex|basis|grow|shrink|items|justify|content|self|place-[a-z]+|overflow(?:-[xy])?|object|opacity|cursor|select|transition|duration|ease|delay|animate|translate-[xy]|scale|rotate|skew|origin|fill|stroke|decoration|align|whitespace|break|list|aspect|columns|d|g|g[xy]|fs|fw|lh|float|position|btn|display)-/;
const UTILITY_VALUE =
  /\d|-(?:auto|full|screen|none|px|xs|sm|md|lg|xl|min|max|fit|center|start|end|between|around|evenly|stretch|baseline|wrap|nowrap|hidden|visible|scroll|clip|white|black|transparent|current|inherit|muted|bold|semibold|medium|normal|light|thin|left|right|top|bottom|col|row|inline|block|flex|grid|fixed|absolute|relative|sticky|static|pointer|sans|serif|mono|tight|snug|relaxed|loose|wide|italic|underline|uppercase|lowercase|capitalize|truncate|ellipsis|shrink|grow|reverse|contain|cover|primary|secondary|success|danger|warning|info|light|dark|link|outline)$/;
const STATE =
  /^(?:is|has)-|^(?:active|open|opened|closed|selected|disabled|enabled|focus|focused|hover|visible|invisible|hidden|show|shown|collapse|collapsed|expanded|checked|current|loading|loaded|dirty|pristine|valid|invalid|touched|untouched|even|odd|first|last|block|inline|inline-block|flex|grid|contents|container|container-fluid|relative|absolute|fixed|sticky|static|truncate|italic|underline|uppercase|lowercase|capitalize|antialiased|rounded|shadow|border|grow|shrink|clearfix|row|col|fade|in|sr-only|visually-hidden)$/;

/**
 * A class that says what an element is (`save`, `btn-primary`, `todo-list`): not generated, not
 * a utility (`px-4`, `md:flex`, `w-1/2`, `d-flex`), not a state (`active`, `ng-valid`).
 */
const classCache = new Map<string, boolean>();

export function isStableClass(c: string): boolean {
  let known = classCache.get(c);
  if (known === undefined) {
    if (classCache.size > 5000) classCache.clear();
    known = stableClass(c);
    classCache.set(c, known);
  }
  return known;
}

function stableClass(c: string): boolean {
  return (
    !isGenerated(c) &&
    !/[[\]/.!#]/.test(c) &&
    !(UTILITY.test(c) && UTILITY_VALUE.test(c)) &&
    !STATE.test(c) &&
    !/^(?:ng|ember|v|vue)-/.test(c)
  );
}

/** State-like data attributes (`data-state="open"`) and framework markers (`data-v-7ba5bd90`, `data-reactid`). */
const DATA_SKIP =
  /^data-(?:v-|react|emotion|styled|radix-|headlessui-|state$|orientation$|side$|align$|focus|hover|active|selected|open|disabled|checked|highlighted|pressed|expanded|loading|index$|key$|id$|row-index|rowindex|colindex|sentry|gtm|ga|analytics|track|aos|testing-library)/;

/**
 * Whether an attribute, with its value, belongs in a fingerprint or a selector: test ids and
 * other `data-*`, `name`, `type`, `href`, `placeholder`, `title`, `alt`, `for`, `role`,
 * `aria-label`; never a generated value or one longer than 100 characters.
 */
export function isStableAttr(name: string, value: string): boolean {
  if (!value || value.length > 100)
    return TEST_ATTRS.includes(name) && value.length > 0 && value.length <= 100;
  if (name.startsWith('data-')) {
    if (DATA_SKIP.test(name) || isGenerated(name.slice(5))) return false;
    return TEST_ATTRS.includes(name) ? !/[:«»]/.test(value) : !isGenerated(value) && !/^\d+$/.test(value);
  }
  switch (name) {
    case 'name':
    case 'for':
      return !isGenerated(value);
    case 'href':
      return !/^(?:javascript:|#$)/i.test(value);
    case 'type':
    case 'placeholder':
    case 'title':
    case 'alt':
    case 'role':
    case 'aria-label':
      return true;
    default:
      return false;
  }
}
