#!/bin/sh
# `npm start`: the compiled service (prestart built dist/), with Node flags that bound its memory
# (README "How npm start runs"; figures in bench/README.md "Resident memory").
#
# - Semi-spaces: 32 MiB on PostgreSQL, where a larger young generation lets a saturating
#   ingestion's requests and processing's chunks die young instead of being copied and promoted
#   (against 8 MiB: GC pauses ~4.2 -> ~2.2 s and Node CPU per events request, its processing
#   included, 424-565 -> 304-318 us; 64 MiB did a little better but ended a run above 400 MiB;
#   bench/README.md, "Hand-over queue and young generation"); 8 MiB on the embedded database,
#   where PGlite's own work dominates (no gain measured) and memory is tighter.
# - Embedded database only (no DATABASE_URL):
#   - --max-old-space-size=1024: V8 collects the old generation at ~1.6x the live heap instead of
#     ~4x, which keeps the process with PGlite's WebAssembly memory near 350 MiB under ingestion
#     (~3% more CPU per event there; on PostgreSQL it cost ~12%, where the process stays under
#     350 MiB without it, so it is left out there);
#   - --no-liftoff: PGlite's WebAssembly compiled by the optimizing compiler only (~60 MiB less).
#   - MALLOC_MMAP_THRESHOLD_=131072: glibc's own default, fixed. By default glibc raises the
#     threshold each time a large mapped block is freed, so later large blocks (many while PGlite
#     boots and compiles) come from the main heap, whose freed middle is never given back. Fixed,
#     blocks of 128 KiB and more are mapped and returned when freed: ~20-30 MiB less resident
#     after boot and under load (bench/README.md, Resident memory). An operator's setting wins.
flags="--max-semi-space-size=32"
if [ -z "${DATABASE_URL:-}" ]; then
  flags="--max-semi-space-size=8 --no-liftoff"
  export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
  # An operator's own ceiling (NODE_OPTIONS=--max-old-space-size=...) wins: a command-line flag
  # would override it.
  case "${NODE_OPTIONS:-}" in
    *--max-old-space-size*) ;;
    *) flags="$flags --max-old-space-size=1024" ;;
  esac
fi
exec node $flags dist/main.js
