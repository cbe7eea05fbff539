import { describe, expect, it } from 'vitest';
import { BATCH_SIZE, EventQueue, FLUSH_INTERVAL_MS, MAX_QUEUED, type QueueDeps } from './queue.js';
import type { Reply } from './transport.js';
import type { EventsResponse, SdkEvent } from './wire.js';

/** A queue on a fake clock and a scripted service. */
function harness(replies: Reply<EventsResponse>[] = []) {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const sent: SdkEvent[][] = [];
  const beacons: SdkEvent[][] = [];
  const problems: string[] = [];
  let persisted: SdkEvent[] | undefined;
  const deps: QueueDeps = {
    send: async (batch) => {
      sent.push(batch);
      return replies.shift() ?? { status: 202 };
    },
    beacon: (batch) => {
      beacons.push(batch);
      return true;
    },
    persist: (events) => {
      persisted = events;
    },
    onProblem: (m) => problems.push(m),
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn, id: nextId++ };
      timers.push(t);
      return t.id;
    },
    clearTimeout: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    random: () => 1,
  };
  const queue = new EventQueue(deps);
  return {
    queue,
    sent,
    beacons,
    problems,
    persisted: () => persisted,
    /** Moves the clock, firing due timers (and letting their sends settle). */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > until) break;
        timers.shift();
        now = next.at;
        next.fn();
        await settle();
      }
      now = until;
    },
    pendingTimers: () => timers.map((t) => t.at - now),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const ev = (n: number): SdkEvent => ({ id: `id-${n}`, type: 'CUSTOM', name: `e${n}` });
const events = (from: number, count: number) => Array.from({ length: count }, (_, i) => ev(from + i));

describe('EventQueue', () => {
  it('sends queued events after at most 5 s, in one batch', async () => {
    const h = harness();
    h.queue.push(ev(1), ev(2));
    await h.advance(FLUSH_INTERVAL_MS - 1);
    expect(h.sent).toEqual([]);
    await h.advance(1);
    expect(h.sent).toEqual([[ev(1), ev(2)]]);
    expect(h.queue.size).toBe(0);
  });

  it('sends at once when 50 are waiting, and never more than 50 a request', async () => {
    const h = harness();
    h.queue.push(...events(0, 120));
    await settle();
    await h.queue.flush();
    expect(h.sent.map((b) => b.length)).toEqual([50, 50, 20]);
    expect(h.sent.flat().map((e) => e.id)).toEqual(events(0, 120).map((e) => e.id));
    expect(Math.max(...h.sent.map((b) => b.length))).toBeLessThanOrEqual(BATCH_SIZE);
  });

  it('flush() sends now and resolves when delivered', async () => {
    const h = harness();
    h.queue.push(ev(1));
    await h.queue.flush();
    expect(h.sent).toEqual([[ev(1)]]);
    expect(h.pendingTimers()).toEqual([]);
  });

  it('retries a failed batch with backoff, honouring Retry-After, with the same event ids', async () => {
    const h = harness([{ status: 503 }, { status: 429, retryAfter: '9' }, { status: 0 }, { status: 202 }]);
    h.queue.push(ev(1), ev(2));
    await h.queue.flush();
    expect(h.pendingTimers()).toEqual([1000]);
    await h.advance(1000);
    expect(h.sent).toHaveLength(2);
    expect(h.pendingTimers()).toEqual([9000]); // 2 s of backoff, but Retry-After says 9
    await h.advance(9000);
    expect(h.pendingTimers()).toEqual([4000]);
    await h.advance(4000);
    expect(h.sent).toHaveLength(4);
    expect(new Set(h.sent.map((b) => b.map((e) => e.id).join()))).toEqual(new Set(['id-1,id-2']));
    expect(h.queue.size).toBe(0);
    // one message per failure, handed to the runtime (which prints at most one)
    expect(h.problems).toHaveLength(3);
  });

  it('does not skip a pending backoff on flush()', async () => {
    const h = harness([{ status: 500 }]);
    h.queue.push(ev(1));
    await h.queue.flush();
    await h.queue.flush();
    expect(h.sent).toHaveLength(1);
  });

  it('drops a batch the service refuses for good (400, 413), keeps sending the rest', async () => {
    const h = harness([{ status: 400 }, { status: 202 }]);
    h.queue.push(...events(0, 60));
    await settle();
    await h.queue.flush();
    expect(h.sent.map((b) => b.length)).toEqual([50, 10]);
    expect(h.queue.size).toBe(0);
    expect(h.problems).toEqual([expect.stringContaining('refused (400)')]);
  });

  it('stops for good on 401 (a wrong or revoked key)', async () => {
    const h = harness([{ status: 401 }]);
    h.queue.push(ev(1));
    await h.queue.flush();
    h.queue.push(ev(2));
    await h.advance(60_000);
    expect(h.sent).toHaveLength(1);
    expect(h.queue.size).toBe(0);
  });

  it('hands everything to sendBeacon when the page hides, in batches of 50', () => {
    const h = harness();
    h.queue.push(...events(0, 70));
    h.queue.beaconAll();
    expect(h.beacons.map((b) => b.length)).toEqual([50, 20]);
    expect(h.queue.size).toBe(0);
    expect(h.persisted()).toBeUndefined();
  });

  it('also keeps a copy for the next page when the service has been failing', async () => {
    const h = harness([{ status: 503 }]);
    h.queue.push(ev(1));
    await h.queue.flush();
    h.queue.beaconAll();
    expect(h.beacons).toEqual([[ev(1)]]);
    expect(h.persisted()).toEqual([ev(1)]);
  });

  it(`keeps at most ${MAX_QUEUED} events during an outage, dropping the oldest`, async () => {
    const h = harness(Array.from({ length: 5 }, () => ({ status: 0 })));
    h.queue.push(ev(-1));
    await h.queue.flush();
    h.queue.push(...events(0, MAX_QUEUED + 10));
    expect(h.queue.size).toBe(MAX_QUEUED);
    expect(h.queue.pending[0]!.id).toBe('id-10');
  });
});
