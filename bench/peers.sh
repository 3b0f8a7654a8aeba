#!/usr/bin/env bash
# Runs the side-by-side harness for browsermcp and both peers in one run,
# interleaving the servers scenario by scenario, and writes BENCHMARKS.md.
# PEERBENCH points at the harness (default ../shared/peerbench); N sets the
# iterations of the steps scenario.
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
mkdir -p "$CACHE/peers" "$OUT"
rm -f "$OUT"/*.json
(cd "$PEERBENCH" && go build -o "$CACHE/peerbench" .)
if [ ! -d "$CACHE/peers/node_modules/@playwright/mcp" ] || [ ! -d "$CACHE/peers/node_modules/chrome-devtools-mcp" ]; then
  cp "$PEERBENCH/peers/package.json" "$CACHE/peers/"
  (cd "$CACHE/peers" && npm install --no-audit --no-fund >&2)
fi
go build -o bin/browsermcp .
PB=("$CACHE/peerbench" -peers "$CACHE/peers" -ours-cmd "$PWD/bin/browsermcp --headless --maxSessions 60")
SERVERS="ours playwright-mcp chrome-devtools-mcp"
log() { echo "[$(date +%T)] $*" >&2; }
run() { # server scenario extra-args...
  local s=$1 sc=$2; shift 2
  log "$sc $s"
  "${PB[@]}" -server "$s" -scenario "$sc" "$@" -json "$OUT/$s.$sc.json" > "$OUT/$s.$sc.md" 2> "$OUT/$s.$sc.err" || log "  $s $sc failed: $(tail -1 "$OUT/$s.$sc.err")"
}
for s in $SERVERS; do run "$s" coldstart -n 8; done
for s in $SERVERS; do run "$s" tokens; done
for s in $SERVERS; do run "$s" steps -n "$N" -warmup 2; done
for s in $SERVERS; do run "$s" memory; done
for s in $SERVERS; do run "$s" compat; done
for s in $SERVERS; do run "$s" concurrent -k 5,10 -m 5 -modes shared; done
files=$(ls "$OUT"/*.json | paste -sd, -)
"$CACHE/peerbench" -compare "$files" > "$OUT/compare.md" 2>/dev/null || true
go run ./bench/report -dir "$OUT" -compare "$OUT/compare.md" > BENCHMARKS.md
# The Grid figures come from BenchmarkGrid (tools/grid_bench_test.go), not
# from peerbench: kept by hand in bench/grid.md.
cat bench/grid.md >> BENCHMARKS.md
# The pool figures come from bench/pool.sh (1 browser against 2), kept in
# bench/pool.md.
cat bench/pool.md >> BENCHMARKS.md
log "wrote BENCHMARKS.md"
