#!/usr/bin/env bash
# Checks that two builds of slotsim give the same outputs: every shipped
# scenario, and the scenarios in scripts/same-outputs/ (failures, job
# actions, policy switches on each cluster model) under every policy that
# runs on them, with --json (less its `version`), --trace, --inspect and
# --flows compared byte for byte. For a change meant to keep every output
# (a refactoring); the day-long and 400-node scenarios are cut short.
#
#   scripts/same-outputs.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# Prints each run that differs and exits 1 if any does. About 5 minutes on
# two cores. The outputs take about 5 GB a binary (`scale-400`'s inspect
# log alone 1.7 GB): without WORK_DIR they go to a temporary directory,
# removed when they are the same.
set -uo pipefail
old=$1 new=$2 work=${3:-}
keep=1
if [ -z "$work" ]; then
  work=$(mktemp -d) keep=0
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
extra=scripts/same-outputs

run() { # BIN DIR NAME ARGS...
  local bin=$1 dir=$2 name=$3; shift 3
  "$bin" run "$@" --headless --json "$dir/$name.json" --trace "$dir/$name.trace" \
    --inspect "$dir/$name.inspect" --flows "$dir/$name.flows" > "$dir/$name.out" 2> "$dir/$name.err"
  echo "exit $?" >> "$dir/$name.out"
  sed -i '/^engine:/d' "$dir/$name.out"
  if [ -f "$dir/$name.json" ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("version",None); print(json.dumps(d,sort_keys=True))' \
      "$dir/$name.json" > "$dir/$name.json.noversion" && rm "$dir/$name.json"
  fi
}

all() { # BIN DIR
  local bin=$1 dir=$2 f n p
  mkdir -p "$dir"
  for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    case $n in
      fb2009-day) run "$bin" "$dir" "$n" "$f" --until 30m ;;
      fb2010-day) run "$bin" "$dir" "$n" "$f" --until 4m ;;
      scale-400) run "$bin" "$dir" "$n" "$f" --until 300s ;;
      *) run "$bin" "$dir" "$n" "$f" ;;
    esac
  done
  for p in $("$bin" policies | awk '/^[a-z]/ {print $1}'); do
    case $p in
      external) run "$bin" "$dir" q-external scenarios/quickstart.toml \
                  --policy "external:python3 clients/python/examples/fifo.py" ;;
      yarn-*)
        run "$bin" "$dir" "yq-$p" scenarios/yarn-quickstart.toml --policy "$p"
        run "$bin" "$dir" "ye-$p" "$extra/yarn-events.toml" --policy "$p"
        run "$bin" "$dir" "yo-$p" scenarios/omo-terasort-8-yarn.toml --policy "$p" ;;
      *)
        run "$bin" "$dir" "q-$p" scenarios/quickstart.toml --policy "$p"
        run "$bin" "$dir" "te-$p" "$extra/typed-events.toml" --policy "$p"
        run "$bin" "$dir" "ue-$p" "$extra/unified-events.toml" --policy "$p" ;;
    esac
  done
  for p in "yarn-fair[scheduling_policy=drf]" "yarn-capacity[resource_calculator=dominant]"; do
    run "$bin" "$dir" "yq-$p" scenarios/yarn-quickstart.toml --policy "$p"
    run "$bin" "$dir" "ye-$p" "$extra/yarn-events.toml" --policy "$p"
  done
}

all "$old" "$work/old"
all "$new" "$work/new"
if diff -rq "$work/old" "$work/new"; then
  if [ "$keep" = 1 ]; then
    echo "same outputs: $(ls "$work/new" | wc -l) files in $work"
  else
    echo "same outputs: $(ls "$work/new" | wc -l) files"
    rm -rf "$work"
  fi
else
  exit 1
fi
