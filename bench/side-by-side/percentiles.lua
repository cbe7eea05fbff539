-- POST the file BODY_FILE names; at the end print p50/p99/p99.9/max from wrk's own histogram
-- (its --latency table stops at p99) and the non-2xx count. Used by bench/events-tail.sh.
local f = io.open(os.getenv("BODY_FILE"), "r")
wrk.body = f:read("*a"); f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d requests=%d rps=%.0f p50=%.2fms p99=%.2fms p99.9=%.2fms max=%.2fms\n",
    summary.errors.status, summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    latency.max / 1000))
end
