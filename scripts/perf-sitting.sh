#!/usr/bin/env bash
# Re-measures the whole-run figures of docs/performance.md in one sitting,
# one run after the other: the shipped big scenarios under each network
# model ("The three network models"), `scale-400` under each heartbeat
# policy on the fixed network ("Heartbeats and policies"), and the same
# jobs on YARN against the slot run ("YARN"). Each scenario is run as its
# file says but for the keys the row names, set in a scratch copy.
#
#   scripts/perf-sitting.sh            # about 10 minutes on 2 cores
#   scripts/perf-sitting.sh --long     # also the FB-2009 day and the TeraSort under shared (hours)
#
# Prints one Markdown row per run: CPU (user) seconds, wall seconds, peak
# resident MB, and the run's events. Uses `slotsim` from PATH, else
# target/release/slotsim (built if missing); python3 writes the copies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v slotsim >/dev/null 2>&1; then
    bin=$(command -v slotsim)
else
    [ -x target/release/slotsim ] || cargo build --release --quiet
    bin=target/release/slotsim
fi
long=
case ${1:-} in
    --long) long=1 ;;
    "") ;;
    *) echo "usage: scripts/perf-sitting.sh [--long]" >&2; exit 2 ;;
esac
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# run LABEL SCENARIO [KEY=VALUE...]: KEY is `section.key` (a string value
# is quoted as TOML; `-` removes the key), set in a copy of SCENARIO
# beside it (so its traces are found).
run() {
    local label=$1 file=$2
    shift 2
    local copy
    copy=$(dirname "$file")/.sitting-$$.toml
    python3 - "$file" "$copy" "$@" <<'PY'
import re, sys
src, dst, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(src).read()
for kv in sets:
    key, value = kv.split("=", 1)
    section, name = key.rsplit(".", 1)
    if not re.fullmatch(r"-?[0-9.]+|true|false", value):
        value = '"%s"' % value
    line = "%s = %s" % (name, value)
    head = re.search(r"^\[%s\]\s*$" % re.escape(section), text, re.M)
    if head is None:
        text += "\n[%s]\n%s\n" % (section, line)
        continue
    # The key within the section (before the next table), else added.
    end = re.search(r"^\[", text[head.end():], re.M)
    stop = head.end() + (end.start() if end else len(text) - head.end())
    body = text[head.end():stop]
    if value == '"-"':
        body = re.sub(r"^%s\s*=.*\n" % re.escape(name), "", body, count=1, flags=re.M)
        text = text[:head.end()] + body + text[stop:]
        continue
    new, n = re.subn(r"^%s\s*=.*$" % re.escape(name), line, body, count=1, flags=re.M)
    if n == 0:
        new = "\n" + line + body
    text = text[:head.end()] + new + text[stop:]
open(dst, "w").write(text)
PY
    local out=$scratch/out
    /usr/bin/time -f "TIME %U %e %M" "$bin" run "$copy" --headless >"$out" 2>&1 || {
        rm -f "$copy"
        echo "| $label | failed: $(tail -1 "$out") |"
        return
    }
    rm -f "$copy"
    local t events
    t=$(grep '^TIME' "$out" | tail -1)
    events=$(grep -o '^engine: [0-9]* events' "$out" | grep -o '[0-9]*')
    read -r _ user wall kb <<<"$t"
    printf '| %s | %s s | %s s | %d MB | %s |\n' "$label" "$user" "$wall" $((kb / 1024)) "$events"
}

echo "slotsim $("$bin" --version 2>/dev/null | awk '{print $2}') ($bin), $(date -u +%Y-%m-%d)"
echo
echo "| run | CPU | wall | peak RSS | events |"
echo "|---|---|---|---|---|"
for m in shared coarse fixed; do
    run "swim-fb2009, $m" scenarios/swim-fb2009.toml network.model=$m
done
for m in shared coarse fixed; do
    run "scale-400, $m" scenarios/scale-400.toml network.model=$m
done
for m in coarse fixed ${long:+shared}; do
    run "fb2009-day, $m" scenarios/fb2009-day.toml network.model=$m
done
for m in coarse fixed ${long:+shared}; do
    run "terasort-1tb-910, $m" scenarios/terasort-1tb-910.toml network.model=$m
done
for p in fair fifo capacity hybsmrp joss-t; do
    run "scale-400, fixed, $p" scenarios/scale-400.toml network.model=fixed scheduler.policy=$p
done
yarn=(network.model=fixed cluster.map_slots=- cluster.reduce_slots=- cluster.slot_model=yarn cluster.memory=6GB cluster.vcores=6)
run "scale-400 on YARN, yarn-fair" scenarios/scale-400.toml "${yarn[@]}" scheduler.policy=yarn-fair
run "scale-400 on YARN, yarn-fair, 1 s heartbeats" scenarios/scale-400.toml "${yarn[@]}" scheduler.policy=yarn-fair cluster.heartbeat=1s
run "scale-400, fixed, fair, 1 s heartbeats" scenarios/scale-400.toml network.model=fixed cluster.heartbeat=1s
run "scale-400 on YARN, yarn-fifo" scenarios/scale-400.toml "${yarn[@]}" scheduler.policy=yarn-fifo
run "scale-400 on YARN, yarn-capacity" scenarios/scale-400.toml "${yarn[@]}" scheduler.policy=yarn-capacity
