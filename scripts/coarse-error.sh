#!/usr/bin/env bash
# The coarse network model's error against the exact one, on the validation
# set docs/performance.md gives (or on the plans named): each plan is swept
# into a scratch directory, then `slotsim merge --job-error shared` prints,
# per scenario, the per-job turnaround error (median, p95, max), the
# makespan and mean turnaround error, and whether the contract holds.
#
#   scripts/coarse-error.sh                    # the whole set (about 15 minutes on 2 cores)
#   scripts/coarse-error.sh PLAN.toml ...      # these plans only
#
# Uses `slotsim` from PATH, else target/release/slotsim (built if missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v slotsim >/dev/null 2>&1; then
    bin=slotsim
else
    [ -x target/release/slotsim ] || cargo build --release --quiet
    bin=target/release/slotsim
fi
plans=("$@")
if [ ${#plans[@]} -eq 0 ]; then
    plans=(docs/validation/coarse.plan.toml docs/validation/coarse-scale400.plan.toml docs/validation/coarse-fb2009.plan.toml)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for p in "${plans[@]}"; do
    out="$scratch/$(basename "$p" .toml)"
    echo "== $p" >&2
    "$bin" sweep "$p" --out "$out" >&2
    "$bin" merge "$out" --job-error shared | tee "$out.md"
    if grep -q '| fails |' "$out.md"; then
        status=1
    fi
    echo
done
exit $status
