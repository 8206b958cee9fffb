#!/bin/sh
# Records the flow files and slotsim's own solver counts, then runs the
# prototype on them. One core; about 20 minutes of CPU in all on the
# 2-core machine (the 910-node recording alone is 2.5 minutes).
#   sh tools/group-fill/run_all.sh [OUTDIR]   (default /tmp/gf)
set -e
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/gf}
mkdir -p "$OUT/res"
BIN=target/release/slotsim
PY=${PYTHON:-python3}
GF=tools/group-fill/group_fill.py

rec() {  # name, then slotsim run arguments
    name=$1; shift
    [ -s "$OUT/$name.jsonl" ] || \
        SLOTSIM_SOLVER_STATS=1 $BIN run "$@" --headless --flows "$OUT/$name.jsonl" \
            >"$OUT/$name.out" 2>"$OUT/$name.err"
}
rec terasort50 scenarios/terasort-50.toml
rec scale400 scenarios/scale-400.toml --until 120s
rec ts910_70 scenarios/terasort-1tb-910.toml --set network.model=shared --until 70s

# terasort-50: every event checked against (a) and against a fill of all
# active flows; (c) on every event.
$PY $GF "$OUT/terasort50.jsonl" --check-every 1 --lazy-every 1 --full-every 1 \
    --label "terasort-50, whole" --json "$OUT/res/terasort50.json" >/dev/null
# scale-400, first 120 s: (b) and (c) on every event, (a) on every 5th,
# all active flows on every 100th.
$PY $GF "$OUT/scale400.jsonl" --check-every 5 --lazy-every 1 --full-every 20 \
    --label "scale-400, 0-120 s" --json "$OUT/res/scale400.json" >/dev/null
# The 910-node TeraSort's shuffle (53-70 s, 493 k events): five windows of
# 10,000 consecutive events, spread evenly over it by event count, each
# started from a full fill; (c) on every 5th event, (a) on every 25th.
for i in 1 3 5 7 9; do
    from=$((2500 + 49300 * i))
    $PY $GF "$OUT/ts910_70.jsonl" --from-event $from --max-events 10000 \
        --check-every 25 --lazy-every 5 --full-every 10 \
        --label "terasort-1tb-910 window $i" --json "$OUT/res/ts910_w$i.json" >/dev/null
done
$PY tools/group-fill/summarize.py "$OUT"
