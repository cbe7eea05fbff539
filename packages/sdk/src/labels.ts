/**
 * The SDK's own words (buttons, hints). Content text comes translated from the service; these
 * are English by default and replaced by `init({ labels })`, then by the tenant setting
 * `settings.sdk.labels[<locale>]` (exact code, then base language). Steps may also carry
 * `content.nextLabel`, `backLabel`, `doneLabel` (translatable like any field).
 */
export const DEFAULT_LABELS = {
  next: 'Next',
  back: 'Back',
  done: 'Done',
  close: 'Close',
  submit: 'Submit',
  thanks: 'Thank you!',
  progress: '{current} of {total}',
  help: 'Help',
  search: 'Search help',
  noResults: 'No results',
  notLikely: 'Not at all likely',
  veryLikely: 'Extremely likely',
  yes: 'Yes',
  no: 'No',
  gotIt: 'Got it',
  required: 'Please answer this question',
  openHint: 'Show hint',
  tasks: 'Getting started',
  /** A step waiting for its target to appear (after the user acts). */
  waiting: 'Waiting for you to do this step in the page…',
  /** Announced with a step that did not take the keyboard. */
  hotkey: 'Press Alt+Shift+G to reach it.',
};

export type Labels = typeof DEFAULT_LABELS;

export const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));

/** The labels for `locale`: defaults, then the page's overrides, then the tenant's for the locale. */
export function resolveLabels(
  locale: string,
  fromInit: Partial<Labels> | undefined,
  fromSettings: unknown,
): Labels {
  const lower = locale.toLowerCase();
  const base = lower.split('-')[0]!;
  let tenant: Record<string, unknown> = {};
  if (fromSettings && typeof fromSettings === 'object') {
    const byLocale = fromSettings as Record<string, unknown>;
    const key =
      Object.keys(byLocale).find((k) => k.toLowerCase() === lower) ??
      Object.keys(byLocale).find((k) => k.toLowerCase() === base);
    const entry = key ? byLocale[key] : undefined;
    if (entry && typeof entry === 'object') tenant = entry as Record<string, unknown>;
  }
  const labels: Labels = { ...DEFAULT_LABELS };
  for (const source of [fromInit ?? {}, tenant]) {
    for (const [k, v] of Object.entries(source)) {
      if (k in labels && typeof v === 'string' && v) labels[k as keyof Labels] = v;
    }
  }
  return labels;
}

/** Right-to-left scripts, for locales the tenant's config does not describe. */
const RTL = new Set(['ar', 'he', 'iw', 'fa', 'ur', 'ps', 'sd', 'ug', 'yi', 'dv', 'ckb']);

/** Whether `locale` is laid out right to left: the tenant's locale list decides, else the language. */
export function isRtlLocale(locale: string, locales: { code: string; isRtl: boolean }[]): boolean {
  const lower = locale.toLowerCase().replace(/_/g, '-');
  const base = lower.split('-')[0]!;
  const known =
    locales.find((l) => l.code.toLowerCase() === lower) ?? locales.find((l) => l.code.toLowerCase() === base);
  return known ? known.isRtl : RTL.has(base);
}
