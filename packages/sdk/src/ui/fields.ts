import type { Labels } from '../labels.js';
import type { SurveyQuestion } from '../wire.js';
import { h, nextId } from './dom.js';

/**
 * Question and form widgets. Each returns its element and a `value()` reading the answer in
 * the shape the service checks (responses-effect.ts): numbers for RATING/SCALE/NPS, a boolean,
 * a choice string, an array of choices, or text; undefined when unanswered.
 */
export interface Field {
  el: HTMLElement;
  value(): unknown;
  required: boolean;
  error: HTMLElement;
}

const int = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);

/** A row of toggle buttons (scores, stars, yes/no); `aria-pressed` marks the choice. */
export function picker<T>(
  values: T[],
  text: (v: T, i: number) => string,
  name: (v: T) => string,
  opts: { star?: boolean; onPick?: (v: T) => void; labelledBy?: string },
): { el: HTMLElement; value(): T | undefined } {
  let chosen: T | undefined;
  const buttons = values.map((v, i) =>
    h(
      'button',
      {
        type: 'button',
        class: opts.star ? 'g-pick g-star' : 'g-pick',
        'aria-pressed': 'false',
        'aria-label': opts.star ? name(v) : undefined,
        onclick: () => {
          chosen = v;
          buttons.forEach((b, j) => {
            b.setAttribute('aria-pressed', String(j === i));
            if (opts.star) b.classList.toggle('g-lit', j <= i);
          });
          opts.onPick?.(v);
        },
      },
      text(v, i),
    ),
  );
  return {
    el: h('div', { class: 'g-scale', role: 'group', 'aria-labelledby': opts.labelledBy }, buttons),
    value: () => chosen,
  };
}

const range = (min: number, max: number) =>
  Array.from({ length: Math.max(0, max - min + 1) }, (_, i) => min + i);

export function questionField(q: SurveyQuestion, labels: Labels): Field {
  const legendId = nextId('g-q');
  const legend = h('legend', { class: 'g-q', id: legendId }, q.question, q.required ? ' *' : '');
  const error = h('div', { class: 'g-err', role: 'alert', hidden: true });
  const choices = Array.isArray(q.options?.choices) ? q.options.choices.map(String) : [];
  let control: HTMLElement;
  let value: () => unknown;
  switch (q.type) {
    case 'NPS':
    case 'SCALE':
    case 'RATING': {
      const [dMin, dMax] = q.type === 'NPS' ? [0, 10] : q.type === 'RATING' ? [1, 5] : [1, 10];
      const min = q.type === 'NPS' ? 0 : int(q.options?.min, dMin);
      const max = q.type === 'NPS' ? 10 : int(q.options?.max, dMax);
      const star = q.type === 'RATING' && max - min < 10;
      const p = picker(range(min, max), (v) => (star ? '★' : String(v)), String, {
        star,
        labelledBy: legendId,
      });
      control = p.el;
      value = p.value;
      break;
    }
    case 'BOOLEAN': {
      const p = picker([true, false], (v) => (v ? labels.yes : labels.no), String, { labelledBy: legendId });
      control = p.el;
      value = p.value;
      break;
    }
    case 'SINGLE_CHOICE':
    case 'MULTIPLE_CHOICE': {
      const multi = q.type === 'MULTIPLE_CHOICE';
      const group = nextId('g-c');
      const inputs = choices.map((c) =>
        h('input', { type: multi ? 'checkbox' : 'radio', name: group, value: c }),
      );
      control = h(
        'div',
        { class: 'g-field' },
        inputs.map((input, i) => h('label', { class: 'g-opt' }, input, choices[i]!)),
      );
      value = () => {
        const picked = inputs.filter((i) => i.checked).map((i) => i.value);
        return multi ? (picked.length ? picked : undefined) : picked[0];
      };
      break;
    }
    case 'DROPDOWN': {
      const select = h(
        'select',
        { class: 'g-input', 'aria-labelledby': legendId },
        h('option', { value: '' }, '—'),
        choices.map((c) => h('option', { value: c }, c)),
      );
      control = select;
      value = () => select.value || undefined;
      break;
    }
    default: {
      const area = h('textarea', { class: 'g-input', 'aria-labelledby': legendId, maxlength: 10000 });
      control = area;
      value = () => area.value.trim() || undefined;
    }
  }
  return {
    el: h('fieldset', { class: 'g-field' }, legend, control, error),
    value,
    required: q.required,
    error,
  };
}

/** Checks required answers, showing a message under each missing one; true when all are there. */
export function validate(fields: Field[], labels: Labels): boolean {
  let ok = true;
  for (const f of fields) {
    const missing = f.required && f.value() === undefined;
    f.error.hidden = !missing;
    f.error.textContent = missing ? labels.required : '';
    if (missing && ok) {
      ok = false;
      f.el.querySelector<HTMLElement>('button,input,select,textarea')?.focus();
    }
  }
  return ok;
}

/**
 * A FORM step's fields, from `content.fields`: `[{ name, label, type (text, email, number,
 * textarea, select, checkbox), required, options, placeholder }]`. Native validation.
 */
export function formFields(spec: unknown): { form: HTMLFormElement; values(): Record<string, unknown> } {
  const list = Array.isArray(spec) ? spec : [];
  const form = h('form', { class: 'g-form', novalidate: false });
  form.addEventListener('submit', (e) => e.preventDefault());
  const readers: [string, () => unknown][] = [];
  list.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object') return;
    const f = raw as Record<string, unknown>;
    const name = typeof f.name === 'string' && f.name ? f.name : `field_${i}`;
    const label = typeof f.label === 'string' ? f.label : name;
    const type = typeof f.type === 'string' ? f.type : 'text';
    const required = f.required === true;
    const id = nextId('g-f');
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (type === 'textarea') control = h('textarea', { class: 'g-input', id, required });
    else if (type === 'select') {
      const options = Array.isArray(f.options) ? f.options.map(String) : [];
      control = h(
        'select',
        { class: 'g-input', id, required },
        h('option', { value: '' }, '—'),
        options.map((o) => h('option', { value: o }, o)),
      );
    } else {
      const t = ['email', 'number', 'checkbox', 'tel', 'url', 'date'].includes(type) ? type : 'text';
      control = h('input', { class: t === 'checkbox' ? undefined : 'g-input', id, type: t, required });
    }
    if (typeof f.placeholder === 'string') control.setAttribute('placeholder', f.placeholder);
    const isBox = type === 'checkbox';
    form.append(
      isBox
        ? h('label', { class: 'g-opt', for: id }, control, label)
        : h(
            'div',
            { class: 'g-field' },
            h('label', { class: 'g-q', for: id }, label, required ? ' *' : ''),
            control,
          ),
    );
    readers.push([name, () => (isBox ? (control as HTMLInputElement).checked : control.value)]);
  });
  return { form, values: () => Object.fromEntries(readers.map(([n, read]) => [n, read()])) };
}
