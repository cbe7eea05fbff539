import { describe, expect, it } from 'vitest';
import {
  addBranch,
  badBranchLabel,
  branchLabelsValid,
  durationError,
  durationText,
  nextBranchLabel,
  parseConfig,
  patchTriggerConfig,
  percentageOf,
  setTriggerType,
  splitDuration,
  splitTotal,
  toMs,
  withTimeout,
} from './node-config';

describe('node config mapping', () => {
  it('shows a duration in the largest unit it is a whole number of, and reads one back in milliseconds', () => {
    expect(splitDuration(7_200_000)).toEqual({ amount: 2, unit: 'hours' });
    expect(splitDuration(3 * 86_400_000)).toEqual({ amount: 3, unit: 'days' });
    expect(splitDuration(90_000)).toEqual({ amount: 1.5, unit: 'minutes' });
    expect(durationText(86_400_000)).toBe('1 day');
    expect(durationText(5_400_000)).toBe('90 minutes');
    expect(toMs('2', 'hours')).toBe(7_200_000);
    expect(toMs('1.5', 'days')).toBe(129_600_000);
    expect(toMs('', 'hours')).toBeUndefined();
    expect(toMs('-1', 'hours')).toBeUndefined();
  });

  it('says what is wrong with a duration: not a positive number, or outside one minute to 365 days', () => {
    expect(durationError('0', 'minutes')).toBe('Enter a positive number');
    expect(durationError('abc', 'hours')).toBe('Enter a positive number');
    expect(durationError('366', 'days')).toBe('Between one minute and 365 days');
    expect(durationError('365', 'days')).toBeUndefined();
  });

  it('starts a new trigger type from its own defaults, and patches its settings', () => {
    expect(setTriggerType('CUSTOM_EVENT')).toEqual({
      triggerType: 'CUSTOM_EVENT',
      triggerConfig: { eventName: '' },
    });
    expect(setTriggerType('MANUAL')).toEqual({ triggerType: 'MANUAL', triggerConfig: {} });
    const url = setTriggerType('URL_MATCH');
    expect(patchTriggerConfig(url, { pattern: '/onboarding' })).toEqual({
      triggerType: 'URL_MATCH',
      triggerConfig: { matchType: 'contains', pattern: '/onboarding' },
    });
  });

  it('adds and removes a WAIT FOR EVENT time-out', () => {
    const on = withTimeout({ eventName: 'paid' }, true, 86_400_000);
    expect(on).toEqual({ eventName: 'paid', timeout: 86_400_000 });
    expect(withTimeout(on, false, 1)).toEqual({ eventName: 'paid' });
  });

  it('keeps a split honest: the total, the next label, unique labels', () => {
    const ab = [
      { label: 'A', percentage: 60 },
      { label: 'B', percentage: 20 },
    ];
    expect(splitTotal(ab)).toBe(80);
    expect(addBranch(ab)).toEqual([...ab, { label: 'C', percentage: 20 }]);
    expect(addBranch([...ab, { label: 'C', percentage: 40 }]).at(-1)).toEqual({ label: 'D', percentage: 0 });
    expect(nextBranchLabel([{ label: 'B', percentage: 50 }])).toBe('A');
    expect(percentageOf('33.6')).toBe(34);
    expect(percentageOf('')).toBe(0);
    const twice = [
      { label: 'A', percentage: 50 },
      { label: ' A ', percentage: 50 },
    ];
    expect(badBranchLabel(twice, 0)).toBe(false);
    expect(badBranchLabel(twice, 1)).toBe(true);
    expect(branchLabelsValid(twice)).toBe(false);
    expect(branchLabelsValid([{ label: '', percentage: 100 }])).toBe(false);
    expect(branchLabelsValid(ab)).toBe(true);
  });

  it('takes a configuration typed as JSON only when it is an object', () => {
    expect(parseConfig('{"duration": 60000}')).toEqual({ config: { duration: 60000 } });
    expect(parseConfig('[1]')).toEqual({ error: 'An object is expected' });
    expect(parseConfig('{')).toHaveProperty('error');
  });
});
