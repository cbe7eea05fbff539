import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { journeyStats, median } from './journey-stats.js';

describe('median', () => {
  it('is the middle value, or the mean of the middle two', () => {
    expect(median([])).toBeNull();
    expect(median([5])).toBe(5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 10, 1_000_000])).toBe(10);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('has as many values at or below it as at or above it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1e9, max: 1e9 }), { minLength: 1, maxLength: 50 }),
        (values) => {
          const m = median(values)!;
          expect(values.filter((v) => v <= m).length).toBeGreaterThanOrEqual(values.length / 2);
          expect(values.filter((v) => v >= m).length).toBeGreaterThanOrEqual(values.length / 2);
        },
      ),
    );
  });
});

describe('journeyStats', () => {
  const H = 3_600_000;

  it('counts statuses, node entries, waits and conversion, and the median time to goal', () => {
    const stats = journeyStats(
      [
        { id: 'a', status: 'goal_reached', enrolledAt: 0, goalReachedAt: 2 * H },
        { id: 'b', status: 'goal_reached', enrolledAt: H, goalReachedAt: 5 * H },
        { id: 'c', status: 'in_progress', enrolledAt: 0, goalReachedAt: null },
        { id: 'd', status: 'abandoned', enrolledAt: 0, goalReachedAt: null },
      ],
      [
        { enrollmentId: 'a', nodeId: 't', exitedAt: 0 },
        { enrollmentId: 'b', nodeId: 't', exitedAt: H },
        { enrollmentId: 'c', nodeId: 't', exitedAt: 0 },
        { enrollmentId: 'd', nodeId: 't', exitedAt: 0 },
        { enrollmentId: 'a', nodeId: 'w', exitedAt: H },
        { enrollmentId: 'a', nodeId: 'w', exitedAt: 2 * H }, // a looped through w
        { enrollmentId: 'c', nodeId: 'w', exitedAt: null }, // c waits at w
        { enrollmentId: 'd', nodeId: 'w', exitedAt: 3 * H },
      ],
    );
    expect(stats.statuses).toEqual({
      in_progress: 1,
      completed: 0,
      goal_reached: 2,
      abandoned: 1,
      stopped: 0,
    });
    expect(stats.nodes).toEqual({
      t: { entered: 4, exited: 4, waiting: 0, enrollments: 4, goalReached: 2, conversion: 50 },
      w: { entered: 4, exited: 3, waiting: 1, enrollments: 3, goalReached: 1, conversion: 33.3 },
    });
    expect(stats.medianTimeToGoalMs).toBe(3 * H);
  });

  it('is all zeros for a journey nobody entered', () => {
    expect(journeyStats([], [])).toEqual({
      statuses: { in_progress: 0, completed: 0, goal_reached: 0, abandoned: 0, stopped: 0 },
      nodes: {},
      medianTimeToGoalMs: null,
    });
  });
});
