#!/usr/bin/env bash
# The events path's tail: p50 / p99 / p99.9 / max of `POST /api/sdk/events` (50 events), which the
# side-by-side harness's wrk table stops short of (p99). One server alone (`npm start`'s flags via
# scripts/start.sh, the harness's setup, rate limits off), RUNS (3) runs of `wrk -t1 -c50 -d10s`,
# each after a 3-second warm-up; percentiles from wrk's histogram (events-tail.lua).
#
#   bash bench/events-tail.sh                                   # embedded database, fresh DATA_DIR
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bash bench/events-tail.sh
#                                                               # a fresh database on that server
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HARNESS=$ROOT/bench/side-by-side
RUNS=${RUNS:-3}
PORT=${PORT:-39112}
WORK=$(mktemp -d -t events-tail.XXXXXX)
DB_ENV=(); BASE_URL=${DATABASE_URL:-}; DB_NAME=""
if [ -n "$BASE_URL" ]; then
  DB_NAME=events_tail_$$
  psql "$BASE_URL" -qAtc "create database $DB_NAME"
  DB_ENV=(DATABASE_URL="${BASE_URL%/*}/$DB_NAME" JWT_SECRET="$(openssl rand -hex 32)" ENCRYPTION_KEY="$(openssl rand -hex 32)")
fi
cleanup() {
  [ -n "${SERVER:-}" ] && { kill -- "-$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  [ -n "$DB_NAME" ] && psql "$BASE_URL" -qAtc "drop database if exists $DB_NAME" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
(cd "$ROOT" && node scripts/build-server.mjs > /dev/null)
cd "$ROOT"
setsid env -u DATABASE_URL -u REDIS_URL DATA_DIR="$WORK/data" PORT="$PORT" HOST=127.0.0.1 \
  RATE_LIMIT_GLOBAL=0 RATE_LIMIT_AUTH=0 RATE_LIMIT_REFRESH=0 RATE_LIMIT_SDK=0 \
  DEFAULT_PLAN=enterprise LOG_LEVEL=warn "${DB_ENV[@]}" sh scripts/start.sh > "$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$PORT/api/health" > /dev/null && break; sleep 0.3; done
curl -sf "http://127.0.0.1:$PORT/api/health" > /dev/null || { echo "the server did not start:" >&2; tail -n 20 "$WORK/server.log" >&2; exit 1; }
(cd "$HARNESS" && node project-bench/client.mjs setup "http://127.0.0.1:$PORT" "$WORK" "$HARNESS/body.json" > /dev/null)
KEY=$(cat "$WORK/api_key")
echo "events tail: $([ -n "$DB_NAME" ] && echo PostgreSQL || echo embedded database), $RUNS × wrk -t1 -c50 -d10s"
for r in $(seq "$RUNS"); do
  sleep 5
  BODY_FILE=$WORK/events.json wrk -t1 -c50 -d3s -H "X-API-Key: $KEY" -s "$ROOT/bench/events-tail.lua" \
    "http://127.0.0.1:$PORT/api/sdk/events" > /dev/null
  echo "run $r: $(BODY_FILE=$WORK/events.json wrk -t1 -c50 -d10s -H "X-API-Key: $KEY" \
    -s "$ROOT/bench/events-tail.lua" "http://127.0.0.1:$PORT/api/sdk/events" | tail -n 1)"
done
