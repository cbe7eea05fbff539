import autocannon, { type Result } from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  /** Requests per second of every repetition, in the order run. */
  runs: number[];
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Measured runs after the warm-up; the median one is reported. */
  repeats?: number;
  /** Runs before each repetition after the first (e.g. letting processing catch up). */
  between?: () => Promise<void>;
}

/**
 * A short warm-up, then `repeats` autocannon runs: the run with the median requests per second
 * is reported, with its own latency percentiles, so that one slow or fast moment of a shared
 * machine does not make the figure. Errors and non-2xx answers are summed over all runs.
 */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const base = {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body === undefined ? {} : { body: opts.body }),
    connections: opts.connections ?? 50,
  };
  await autocannon({ ...base, duration: 2 });
  const results: Result[] = [];
  for (let i = 0; i < (opts.repeats ?? 1); i++) {
    if (i > 0) await opts.between?.();
    results.push(await autocannon({ ...base, duration: opts.seconds ?? 10 }));
  }
  const median = [...results].sort((a, b) => a.requests.average - b.requests.average)[
    Math.floor((results.length - 1) / 2)
  ]!;
  const sum = (f: (r: Result) => number) => results.reduce((n, r) => n + f(r), 0);
  return {
    rps: median.requests.average,
    p50: median.latency.p50,
    p99: median.latency.p99,
    errors: sum((r) => r.errors + r.timeouts),
    non2xx: sum((r) => r.non2xx),
    total: sum((r) => r.requests.total),
    runs: results.map((r) => r.requests.average),
  };
}
