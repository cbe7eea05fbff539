import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
}

/** One autocannon run after a short warm-up; requests a second and latency percentiles (ms). */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const base = {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body === undefined ? {} : { body: opts.body }),
    connections: opts.connections ?? 50,
  };
  await autocannon({ ...base, duration: 2 });
  const r = await autocannon({ ...base, duration: opts.seconds ?? 10 });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}
