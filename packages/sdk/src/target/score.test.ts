import { describe, expect, it } from 'vitest';
import {
  acceptable,
  clearWinner,
  MIN_IDENTITY,
  MIN_MARGIN,
  MIN_SCORE,
  type Ranked,
  score,
  textSim,
} from './score.js';
import type { Fingerprint } from './types.js';

const save: Fingerprint = {
  v: 1,
  tag: 'button',
  role: 'button',
  name: 'Save changes',
  text: 'Save changes',
  attrs: { type: 'submit' },
  classes: ['primary'],
  landmark: 'form:Profile',
  heading: 'Your profile',
  near: 'Cancel',
  path: 'div>main>form>div>button',
  index: 2,
  rect: [640, 420, 120, 36],
};
const ranked = (fp: Fingerprint, el = {} as Element): Ranked => ({ el, ...score(save, fp) });

describe('the healing scorer', () => {
  it('scores the element itself 1', () => {
    expect(score(save, save)).toEqual({ score: 1, identity: 1 });
  });

  it('is untouched by a hashed class (never recorded), case changes and an added wrapper', () => {
    const after: Fingerprint = {
      ...save,
      text: 'SAVE CHANGES',
      name: 'SAVE CHANGES',
      path: 'div>main>form>div>span>button',
      rect: [640, 430, 120, 36],
    };
    const s = score(save, after);
    expect(s.identity).toBe(1);
    expect(s.score).toBeGreaterThan(0.9);
    expect(acceptable(ranked(after))).toBe(true);
  });

  it('does not take a neighbour that only shares the surroundings (the element was removed)', () => {
    const cancel: Fingerprint = {
      ...save,
      name: 'Cancel',
      text: 'Cancel',
      near: 'Save changes',
      index: 1,
      attrs: { type: 'button' },
    };
    const s = score(save, cancel);
    expect(s.identity).toBeLessThan(MIN_IDENTITY);
    expect(acceptable(ranked(cancel))).toBe(false);
    // even one whose words are close: "Export CSV" is not "Import CSV"
    const exportCsv: Fingerprint = {
      v: 1,
      tag: 'button',
      role: 'button',
      name: 'Export CSV',
      text: 'Export CSV',
      path: 'div>button',
    };
    const importCsv: Fingerprint = { ...exportCsv, name: 'Import CSV', text: 'Import CSV' };
    expect(score(exportCsv, importCsv).identity).toBeLessThan(MIN_IDENTITY);
  });

  it('follows an element that moved elsewhere with its identity', () => {
    const moved: Fingerprint = {
      ...save,
      landmark: 'toolbar',
      heading: undefined,
      near: 'Preview Publish',
      path: 'div>header>div>button',
      index: 3,
      rect: [1100, 20, 120, 36],
    };
    const s = score(save, moved);
    expect(s.identity).toBe(1);
    expect(s.score).toBeGreaterThanOrEqual(MIN_SCORE);
  });

  it('lets a test id or an id carry an element whose text changed', () => {
    const withId: Fingerprint = { ...save, attrs: { 'data-testid': 'profile-save', type: 'submit' } };
    const renamed: Fingerprint = { ...withId, name: 'Update', text: 'Update' };
    expect(score(withId, renamed).identity).toBeGreaterThanOrEqual(MIN_IDENTITY);
    expect(acceptable({ el: {} as Element, ...score(withId, renamed) })).toBe(true);
  });

  it('asks more of a fingerprint without identity (no text, name, id or test id)', () => {
    const box: Fingerprint = { v: 1, tag: 'div', classes: ['chart'], path: 'div>main>section>div', index: 1 };
    const s = score(box, { ...box, path: 'div>main>section>div>div' });
    expect(s.identity).toBe(-1);
    expect(acceptable({ el: {} as Element, ...s })).toBe(s.score >= 0.8);
    expect(acceptable({ el: {} as Element, score: 0.7, identity: -1 })).toBe(false);
  });

  it('anchors only to a clear winner', () => {
    const a = { el: {} as Element, score: 0.9, identity: 1 };
    expect(clearWinner([a])).toBe(a);
    expect(clearWinner([a, { el: {} as Element, score: 0.9 - MIN_MARGIN / 2, identity: 1 }])).toBeNull();
    expect(clearWinner([a, { el: {} as Element, score: 0.9 - MIN_MARGIN - 0.01, identity: 1 }])).toBe(a);
    expect(clearWinner([{ el: {} as Element, score: 0.95, identity: 0.2 }])).toBeNull();
    expect(clearWinner([])).toBeNull();
  });

  it('compares text by words, whatever the case and spacing', () => {
    expect(textSim('Save  changes', 'save changes')).toBe(1);
    expect(textSim('Save', 'Save changes')).toBe(0.5);
    expect(textSim('Export CSV', 'Import CSV')).toBeCloseTo(1 / 3);
    expect(textSim('Delete', 'Archive')).toBe(0);
  });
});
