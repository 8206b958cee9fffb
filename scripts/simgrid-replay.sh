#!/usr/bin/env bash
# Replays every flow of a `slotsim run --flows` file through SimGrid's own
# max-min network model and prints how far slotsim's flow ends are from
# SimGrid's (see tools/simgrid-replay/README.md).
#
#   scripts/simgrid-replay.sh FLOWS.jsonl [--out ENDS] [--check TOL_MS] [--cfg=NAME:VALUE...]
#   scripts/simgrid-replay.sh --self-test
#
# On Debian: installs libsimgrid-dev and g++ with apt-get when they are
# missing (as root, or through sudo), builds tools/simgrid-replay/replay.cpp
# into target/simgrid-replay/ (again whenever the source changes), runs it.
#
# --out ENDS     also write SimGrid's end of every flow ("id end_s" lines)
# --check TOL_MS exit 1 unless every finished flow is within TOL_MS of slotsim
# --cfg=N:V      a SimGrid setting, applied after the replay's own
# --self-test    replay tools/simgrid-replay/test.flows, whose ends are known
#
# Exit status: 0 ok; 1 a --check (or the self-test) failed; 2 bad arguments
# or a bad flows file; 3 SimGrid could not be installed or the replay built.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tool=$root/tools/simgrid-replay
src=$tool/replay.cpp
cache=$root/target/simgrid-replay
bin=$cache/replay

usage() { echo "usage: scripts/simgrid-replay.sh FLOWS.jsonl [--out ENDS] [--check TOL_MS] [--cfg=NAME:VALUE...] | --self-test"; }
fail() { # fail STATUS MESSAGE
    echo "simgrid-replay: $2" >&2
    exit "$1"
}

flows= out= check= self_test=
cfg=()
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --self-test) self_test=1 ;;
        --out)
            [ $# -ge 2 ] || fail 2 "--out needs a file name"
            out=$2; shift ;;
        --check)
            [ $# -ge 2 ] || fail 2 "--check needs a tolerance in ms"
            check=$2; shift ;;
        --cfg=?*) cfg+=("$1") ;;
        -*) fail 2 "unknown option $1 ($(usage))" ;;
        *)
            [ -z "$flows" ] || fail 2 "more than one flows file given ($(usage))"
            flows=$1 ;;
    esac
    shift
done
if [ -n "$self_test" ]; then
    [ -z "$flows" ] || fail 2 "--self-test takes no flows file"
    flows=$tool/test.flows
    check=${check:-0.000001}
fi
[ -n "$flows" ] || fail 2 "no flows file given ($(usage))"
[ -f "$flows" ] && [ -r "$flows" ] || fail 2 "cannot read $flows"

# --- SimGrid and a C++ compiler, from Debian's packages.
have_deps() {
    [ -f /usr/include/simgrid/s4u.hpp ] && command -v g++ >/dev/null 2>&1 &&
        compgen -G '/usr/lib/*/libsimgrid.so' >/dev/null
}
if ! have_deps; then
    command -v apt-get >/dev/null 2>&1 ||
        fail 3 "needs libsimgrid-dev and g++, and there is no apt-get to install them"
    if [ "$(id -u)" = 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null 2>&1; then
        as_root=(sudo)
    else
        fail 3 "needs libsimgrid-dev and g++: run as root (or install them: apt-get install libsimgrid-dev g++)"
    fi
    mkdir -p "$cache"
    log=$cache/apt.log
    echo "simgrid-replay: installing libsimgrid-dev and g++ with apt-get (log: $log)" >&2
    pkgs=(libsimgrid-dev g++)
    export DEBIAN_FRONTEND=noninteractive
    if ! ${as_root[@]+"${as_root[@]}"} apt-get install -y -q --no-install-recommends "${pkgs[@]}" >"$log" 2>&1; then
        # A fresh machine may have no package lists yet.
        { ${as_root[@]+"${as_root[@]}"} apt-get update -q && ${as_root[@]+"${as_root[@]}"} apt-get install -y -q --no-install-recommends "${pkgs[@]}"; } \
            >>"$log" 2>&1 || fail 3 "apt-get could not install ${pkgs[*]} (see $log)"
    fi
    have_deps || fail 3 "libsimgrid-dev and g++ were installed but are not usable (see $log)"
fi

# --- Build (again) when the source, the compiler or SimGrid changed.
cxxflags=(-O2 -std=c++17)
stamp=$( { sha256sum "$src"; echo "${cxxflags[*]}"; g++ -dumpfullversion;
           grep -h 'define SIMGRID_VERSION_STRING' /usr/include/simgrid/version.h 2>/dev/null || true; } | sha256sum | cut -d' ' -f1)
if [ ! -x "$bin" ] || [ "$(cat "$cache/stamp" 2>/dev/null || true)" != "$stamp" ]; then
    mkdir -p "$cache"
    echo "simgrid-replay: building $bin" >&2
    g++ "${cxxflags[@]}" "$src" -o "$bin.tmp" -lsimgrid 2>"$cache/build.log" ||
        fail 3 "building $src failed (see $cache/build.log)"
    mv -f "$bin.tmp" "$bin"
    echo "$stamp" >"$cache/stamp"
fi

args=("$flows")
[ -z "$out" ] || args+=(--out "$out")
[ -z "$check" ] || args+=(--check "$check")
args+=(${cfg[@]+"${cfg[@]}"})
exec "$bin" "${args[@]}"
