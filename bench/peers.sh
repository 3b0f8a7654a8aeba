#!/usr/bin/env bash
# Runs the side-by-side harness for browsermcp and the three peers
# (playwright-mcp, chrome-devtools-mcp, agent-browser) in one run,
# interleaving the servers scenario by scenario, with the raw-CDP floors of
# bench/floor (cold start, click) measured in the same run, and writes
# BENCHMARKS.md. PEERBENCH points at the harness (default
# ../shared/peerbench); PEERS at the npm install of the pinned peers
# (default bench/peers, installed by `make bench-deps`); N sets the
# iterations of the steps scenario. The task section comes from
# bench/harness, in this repository, run last (`make bench-peers` runs it
# alone).
set -euo pipefail
cd "$(dirname "$0")/.."
PEERBENCH=${PEERBENCH:-../shared/peerbench}
N=${N:-15}
if [ ! -f "$PEERBENCH/main.go" ]; then
  echo "bench-peers: no peerbench harness at $PEERBENCH; set PEERBENCH=/path/to/peerbench" >&2
  exit 1
fi
CACHE=$PWD/.cache
OUT=$CACHE/bench
PEERS=${PEERS:-$PWD/bench/peers}
mkdir -p "$OUT"
rm -f "$OUT"/*.json
(cd "$PEERBENCH" && go build -o "$CACHE/peerbench" .)
if [ ! -d "$PEERS/node_modules/@playwright/mcp" ] || [ ! -d "$PEERS/node_modules/chrome-devtools-mcp" ] || [ ! -d "$PEERS/node_modules/agent-browser" ]; then
  echo "bench-peers: no peers in $PEERS/node_modules; run make bench-deps" >&2
  exit 1
fi
go build -o bin/browsermcp .
go build -o "$CACHE/floor" ./bench/floor
PB=("$CACHE/peerbench" -peers "$PEERS" -ours-cmd "$PWD/bin/browsermcp --headless --maxSessions 60")
SERVERS="ours playwright-mcp chrome-devtools-mcp agent-browser"
log() { echo "[$(date +%T)] $*" >&2; }
run() { # server scenario extra-args...
  local s=$1 sc=$2; shift 2
  log "$sc $s"
  "${PB[@]}" -server "$s" -scenario "$sc" "$@" -json "$OUT/$s.$sc.json" > "$OUT/$s.$sc.md" 2> "$OUT/$s.$sc.err" || log "  $s $sc failed: $(tail -1 "$OUT/$s.$sc.err")"
}
floor() { # scenario extra-args...
  local sc=$1; shift
  log "$sc floor"
  "$CACHE/floor" -scenario "$sc" "$@" -json "$OUT/floor.$sc.json" 2> "$OUT/floor.$sc.err" || log "  floor $sc failed: $(tail -1 "$OUT/floor.$sc.err")"
}
for s in $SERVERS; do run "$s" coldstart -n 8; done
floor coldstart -n 8
for s in $SERVERS; do run "$s" tokens; done
for s in $SERVERS; do run "$s" steps -n "$N" -warmup 2; done
floor click -n "$N"
floor steps -n "$N"
for s in $SERVERS; do run "$s" memory; done
for s in $SERVERS; do run "$s" compat; done
# Ten agents for every server; fifty in ours only, for the cost of an op as
# sessions grow (issue 17). agent-browser starts a browser per session.
for s in $SERVERS; do
  k=5,10
  if [ "$s" = ours ]; then k=5,10,50; fi
  run "$s" concurrent -k "$k" -m 3 -modes shared
done
# Where an op's CPU and memory go as sessions grow, per process type.
log "sessions ours"
go run ./bench/sessions -peerbench "$CACHE/peerbench" -peers "$PEERS" > "$OUT/sessions.md" && mv "$OUT/sessions.md" bench/sessions.md || log "  bench/sessions failed"
files=$(ls "$OUT"/*.json | grep -v '/floor\.' | paste -sd, -)
"$CACHE/peerbench" -compare "$files" > "$OUT/compare.md" 2>/dev/null || true
go run ./bench/report -dir "$OUT" -compare "$OUT/compare.md" > BENCHMARKS.md
# The Grid figures come from BenchmarkGrid (tools/grid_bench_test.go), not
# from peerbench: kept by hand in bench/grid.md.
cat bench/grid.md >> BENCHMARKS.md
# The pool figures come from bench/pool.sh (1 browser against 2), kept in
# bench/pool.md.
cat bench/pool.md >> BENCHMARKS.md
# Tokens per task: bench/harness writes its section in place.
log "tasks (bench/harness)"
go run ./bench/harness -peers "$PEERS" -update BENCHMARKS.md || log "  bench/harness failed"
log "wrote BENCHMARKS.md"
