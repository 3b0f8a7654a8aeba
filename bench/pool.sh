#!/usr/bin/env bash
# Measures what the browser pool gives: peerbench's concurrent scenario
# (K agents, each M x [navigate, snapshot, type, click] in a session of
# its own, all sessions in one server) on a pool of 1 browser and of 2,
# alternating for R rounds so that the machine's load falls on both alike,
# and writes bench/pool.md (which bench/peers.sh appends to BENCHMARKS.md).
# PEERBENCH points at the harness (default ../shared/peerbench).
set -euo pipefail
cd "$(dirname "$0")/.."
PEERBENCH=${PEERBENCH:-../shared/peerbench}
K=${K:-10}
M=${M:-5}
R=${R:-5}
POOLS=${POOLS:-"1 2"}
if [ ! -f "$PEERBENCH/main.go" ]; then
  echo "bench/pool.sh: no peerbench harness at $PEERBENCH; set PEERBENCH=/path/to/peerbench" >&2
  exit 1
fi
command -v jq >/dev/null || { echo "bench/pool.sh: needs jq" >&2; exit 1; }
CACHE=$PWD/.cache
OUT=$CACHE/bench/pool
mkdir -p "$OUT"
rm -f "$OUT"/*.json
(cd "$PEERBENCH" && go build -o "$CACHE/peerbench" .)
go build -o bin/browsermcp .
load() { cut -d' ' -f1-3 /proc/loadavg; }
started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(load)
for r in $(seq "$R"); do
  for n in $POOLS; do
    echo "[$(date +%T)] round $r, $n browser(s)" >&2
    "$CACHE/peerbench" -server ours -scenario concurrent -k "$K" -m "$M" -modes shared \
      -ours-cmd "$PWD/bin/browsermcp --headless --maxSessions 60 --pool-min-browsers $n --pool-max-browsers $n" \
      -json "$OUT/$n.$r.json" >/dev/null 2>"$OUT/$n.$r.err" || echo "  failed: $(tail -1 "$OUT/$n.$r.err")" >&2
  done
done
load_after=$(load)
# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {if (NR) printf "%.1f–%.1f", lo, hi}'; }
field() { for f in "$OUT"/"$1".*.json; do jq -r ".concurrent[0].$2" "$f"; done; }
{
  echo
  echo "## Browser pool: $K agents on 1 browser and on 2"
  echo
  echo "\`K=$K M=$M R=$R ./bench/pool.sh\`, run $started on $(nproc) cores; load average $load_before before and"
  echo "$load_after after (other helpers' builds and tests ran at the same time: absolute numbers are"
  echo "inflated and noisy, compare the rows). peerbench's \`concurrent\` scenario, mode \`shared\`: one server,"
  echo "$K sessions, each agent doing $M x [navigate, snapshot, type, click], $((K * M * 4)) tool calls per run;"
  echo "the server runs \`--pool-min-browsers N --pool-max-browsers N\`, so the browsers start ahead and"
  echo "the sessions are spread evenly. $R runs per row, alternating; median (and range) over the runs."
  echo "Two browser main processes share out what one does alone (every session's CDP traffic, its"
  echo "network and IPC); on a loaded machine they also get a larger share of the CPU from the"
  echo "scheduler than one process would, so part of the gain may be that share rather than the pool."
  echo
  echo "| browsers | ops/s | op p50 ms | op p95 ms | peak PSS MiB | errors |"
  echo "|---|---|---|---|---|---|"
  for n in $POOLS; do
    ops=$(field "$n" ops_per_sec)
    p95=$(field "$n" 'op_latency_ms.all.p95')
    printf '| %s | %s (%s) | %s | %s (%s) | %s | %s |\n' "$n" \
      "$(median <<<"$ops")" "$(range <<<"$ops")" \
      "$(field "$n" 'op_latency_ms.all.median' | median)" \
      "$(median <<<"$p95")" "$(range <<<"$p95")" \
      "$(field "$n" 'mem_peak.pss_kb' | awk '{printf "%.0f\n", $1/1024}' | median | cut -d. -f1)" \
      "$(field "$n" errors | awk '{s+=$1} END {print s+0}')"
  done
} > bench/pool.md
cat bench/pool.md
