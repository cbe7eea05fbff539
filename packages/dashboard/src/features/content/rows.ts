/**
 * The row editors' data (a survey's questions, a task list's items) and their edits as pure
 * functions. Rows are positional: a new one has no key yet, and `order` is set from the position
 * when saved (`withOrder`). Unknown keys of a row (a question's `key`) are kept as they are.
 */

export type Row = Record<string, unknown>;

export const updateRow = (rows: readonly Row[], i: number, patch: Row): Row[] =>
  rows.map((r, j) => (j === i ? { ...r, ...patch } : r));
export const removeRow = (rows: readonly Row[], i: number): Row[] => rows.filter((_, j) => j !== i);

/** Rows may be added up to this many (the API's limit). */
export const MAX_ROWS = 100;

// ---- survey questions ------------------------------------------------------------------------

export const QUESTION_TYPES = [
  { value: 'RATING', label: 'Rating' },
  { value: 'TEXT', label: 'Free text' },
  { value: 'SINGLE_CHOICE', label: 'Single choice' },
  { value: 'MULTIPLE_CHOICE', label: 'Multiple choice' },
  { value: 'DROPDOWN', label: 'Dropdown' },
  { value: 'NPS', label: 'NPS (0 to 10)' },
  { value: 'SCALE', label: 'Scale' },
  { value: 'BOOLEAN', label: 'Yes / no' },
] as const;
export const CHOICE_TYPES = new Set(['SINGLE_CHOICE', 'MULTIPLE_CHOICE', 'DROPDOWN']);
export const RANGE_TYPES = new Set(['RATING', 'SCALE']);

export const newQuestion = (): Row => ({ type: 'TEXT', question: '', required: false, options: {} });

export const optionsOf = (q: Row) => (q.options ?? {}) as Row;
export const choicesOf = (q: Row) => (optionsOf(q).choices as string[] | undefined) ?? [];

/** Options merged with a patch; a key patched to `undefined` is removed (an emptied lowest value). */
export function mergeOptions(options: Row, patch: Row): Row {
  const next: Row = { ...options, ...patch };
  for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
  return next;
}

/**
 * A question given another type: choice types keep their choices (two placeholders when it had
 * none), range types keep their lowest and highest values, anything else has no options.
 */
export function retypeQuestion(q: Row, type: string): Row {
  const options = optionsOf(q);
  const choices = choicesOf(q);
  const next: Row = {};
  if (CHOICE_TYPES.has(type)) next.choices = choices.length ? choices : ['Option 1', 'Option 2'];
  if (RANGE_TYPES.has(type)) {
    if (options.min !== undefined) next.min = options.min;
    if (options.max !== undefined) next.max = options.max;
  }
  return { type, options: next };
}

// ---- task-list items -------------------------------------------------------------------------

export const TASK_ACTIONS = [
  { value: 'NAVIGATE', label: 'Go to a page of the app' },
  { value: 'EXTERNAL_LINK', label: 'Open an external link' },
  { value: 'COMPLETE_FLOW', label: 'Complete a flow' },
  { value: 'FILL_FORM', label: 'Fill in a form' },
] as const;

export const newTask = (): Row => ({ title: '', actionType: 'NAVIGATE', actionConfig: { url: '' } });
