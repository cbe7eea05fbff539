-- wrk script for bench/events-tail.sh: the harness's request (post_file.lua: POST the file
-- $BODY_FILE names), and at the end p50/p99/p99.9/max from wrk's own histogram (its --latency
-- table stops at p99) and the non-2xx count.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/side-by-side/project-bench/post_file.lua")

done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d requests=%d rps=%.0f p50=%.2fms p99=%.2fms p99.9=%.2fms max=%.2fms\n",
    summary.errors.status, summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    latency.max / 1000))
end
