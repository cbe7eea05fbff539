#!/usr/bin/env bash
# usage: bench/memory.sh [--pg]
#
# Resident memory of the service as the side-by-side harness sees it: `npm start` in its own
# process group (setsid), the RSS of every process of the group printed
#   1. idle after boot,
#   2. after seeding the harness's tenant (client.mjs setup: API key, 20 audiences, 100 flows),
#   3. right after LOAD seconds of `POST /api/sdk/events` (50 events a request, wrk -c CONN),
#   4. idle again after the load (the event processor done).
# Embedded database by default (fresh DATA_DIR); --pg: a fresh database on PG_URL (the running
# PostgreSQL, dropped at the end), with REDIS_URL when it is set in the environment.
#
# Knobs: LOAD (20 s), CONN (50), PG_URL (postgres://postgres@127.0.0.1:5432), START ("npm start").
set -uo pipefail

LOAD=${LOAD:-20}; CONN=${CONN:-50}; PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
START=${START:-npm start}
PG=0; [ "${1:-}" = --pg ] && PG=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLIENT=$ROOT/bench/side-by-side/project-bench
TMPD=$(mktemp -d -t guidance-memory.XXXXXX)
DB=""; PGID=""

cleanup() {
  if [ -n "$PGID" ]; then
    kill -TERM -- "-$PGID" 2>/dev/null
    for _ in $(seq 50); do kill -0 -- "-$PGID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$PGID" 2>/dev/null
  fi
  [ -n "$DB" ] && psql "$PG_URL/postgres" -qAtc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
  rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# pid, RSS and command of every live process of group $1, and their sum
rss_table() {
  local ps; ps=$(getconf PAGESIZE)
  for stat in /proc/[0-9]*/stat; do
    { read -r line < "$stat"; } 2>/dev/null || continue
    local pid=${line%% *} rest=${line##*) }
    set -- $rest
    [ "$3" = "$PGID" ] && [ "$1" != Z ] || continue
    printf '%s %s %s\n' "$pid" "$(( ${22} * ps / 1048576 ))" "$(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-90)"
  done | sort -n | awk '{ t += $2; printf "    %7s %5s MiB  ", $1, $2; $1 = $2 = ""; print substr($0, 3) } END { printf "    total %9s MiB\n", t }'
}
group_ticks() {
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$PGID" '{ s=$0; sub(/^.*\) /, "", s); split(s, f, " "); if (f[3] == g) t += f[12] + f[13] } END { print t+0 }'
}
# waits until the group uses < 10% of a core for 2 s in a row (at most 60 s)
settle() {
  local hz t0 t1 quiet=0
  hz=$(getconf CLK_TCK); t0=$(group_ticks)
  for _ in $(seq 60); do
    sleep 1; t1=$(group_ticks)
    if [ $((t1 - t0)) -le $((hz / 10)) ]; then quiet=$((quiet + 1)); [ "$quiet" -ge 2 ] && return; else quiet=0; fi
    t0=$t1
  done
  echo "    (not idle after 60 s)"
}
report() { echo "== $1 (load average $(cut -d' ' -f1-3 /proc/loadavg))"; rss_table; }

ENV=(env -u DATABASE_URL -u REDIS_URL DATA_DIR="$TMPD/data" HOST=127.0.0.1 LOG_LEVEL=warn
     RATE_LIMIT_GLOBAL=0 RATE_LIMIT_AUTH=0 RATE_LIMIT_REFRESH=0 RATE_LIMIT_SDK=0 DEFAULT_PLAN=enterprise)
if [ "$PG" = 1 ]; then
  DB=guidance_memory_$$_$(date +%s)
  psql "$PG_URL/postgres" -qAtc "CREATE DATABASE $DB" || exit 1
  ENV+=(DATABASE_URL="$PG_URL/$DB" JWT_SECRET="$(openssl rand -hex 32)" ENCRYPTION_KEY="$(openssl rand -hex 32)")
  [ -n "${REDIS_URL:-}" ] && ENV+=(REDIS_URL="$REDIS_URL")
fi
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
BASE=http://127.0.0.1:$PORT
echo "service: $START, $([ "$PG" = 1 ] && echo "PostgreSQL ($DB${REDIS_URL:+, Redis})" || echo embedded), port $PORT"

cd "$ROOT" || exit 1
setsid bash -c 'echo $$ > "$0"; exec "$@"' "$TMPD/pgid" "${ENV[@]}" PORT="$PORT" $START > "$TMPD/log" 2>&1 < /dev/null &
for _ in $(seq 50); do [ -s "$TMPD/pgid" ] && break; sleep 0.1; done
PGID=$(cat "$TMPD/pgid")
t0=$SECONDS
until [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$BASE/api/health")" = 200 ]; do
  if [ $((SECONDS - t0)) -ge 120 ] || ! kill -0 -- "-$PGID" 2>/dev/null; then tail -n 30 "$TMPD/log"; echo "not healthy" >&2; exit 1; fi
  sleep 0.5
done
echo "healthy after $((SECONDS - t0)) s"
settle; report "idle after boot"

node "$CLIENT/client.mjs" setup "$BASE" "$TMPD" "$CLIENT/../body.json" > "$TMPD/setup.log" || { cat "$TMPD/setup.log"; exit 1; }
settle; report "idle after seeding"

BODY_FILE=$TMPD/events.json wrk -t1 -c"$CONN" -d"${LOAD}s" -H "X-API-Key: $(cat "$TMPD/api_key")" \
  -s "$CLIENT/post_file.lua" "$BASE/api/sdk/events" > "$TMPD/wrk.txt" 2>&1 &
WRK=$!
ticks0=$(group_ticks)
peak=0  # the group's largest total RSS, sampled every 0.5 s during the load
while kill -0 "$WRK" 2>/dev/null; do
  now=$(rss_table | awk '/total/{print $2}'); [ "${now:-0}" -gt "$peak" ] && peak=$now
  sleep 0.5
done
ticks=$(( $(group_ticks) - ticks0 ))
report "right after ${LOAD} s of POST /api/sdk/events: $(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" '/requests in/{q=$1} /Requests\/sec/{r=$2} /Non-2xx/{n=$NF}
  END{printf "%s req/s, %d non-2xx, service CPU %.2f ms a request", r, n, q ? 1000 * t / hz / q : 0}' "$TMPD/wrk.txt"), peak $peak MiB"
settle; report "idle after the load"
grep -i -E '"level":(50|60)|error' "$TMPD/log" | head -n 5
