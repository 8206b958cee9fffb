#!/usr/bin/env bash
# Drives the TUI in tmux as a person would and checks what the screen shows.
# Usage: scripts/tui-smoke.sh [COLSxROWS] (default 120x36). Needs tmux and a
# built target/release/slotsim.
set -euo pipefail
size=${1:-120x36}
cols=${size%x*}; rows=${size#*x}
bin=$(cd "$(dirname "$0")/.." && pwd)/target/release/slotsim
s=slotsim-smoke-$$
out=$(mktemp)
fail() { echo "FAIL: $*"; tmux capture-pane -t "$s" -p; tmux kill-session -t "$s" 2>/dev/null; exit 1; }
# The header: one line, or two below 60 columns.
head_line() { tmux capture-pane -t "$s" -p | head -2 | tr '\n' ' '; }
tmux new-session -d -s "$s" -x "$cols" -y "$rows" "$bin; echo \$? > $out; sleep 30"
sleep 2
h1=$(head_line); sleep 1.5; h2=$(head_line)
[[ $h1 == *"policy: fair"* ]] || fail "header lacks policy: fair: $h1"
[[ $h1 != "$h2" ]] || fail "clock not live"
tmux send-keys -t "$s" ' '; sleep 0.5
p1=$(head_line); sleep 1.5; p2=$(head_line)
[[ $p1 == *paused* && $p1 == "$p2" ]] || fail "pause does not hold the header: $p1 / $p2"
tmux send-keys -t "$s" '.'; sleep 0.5
p3=$(head_line)
[[ $p3 != "$p2" ]] || fail ". did not advance"
tmux send-keys -t "$s" p; sleep 0.5
pick=$(tmux capture-pane -t "$s" -p)
for name in fifo fair capacity; do [[ $pick == *"$name"* ]] || fail "picker lacks $name"; done
tmux send-keys -t "$s" Up; sleep 0.2; tmux send-keys -t "$s" Enter; sleep 0.5
[[ $(head_line) == *"policy: fifo"* ]] || fail "switch did not change the header"
jobs() { head_line | grep -o 'jobs: [0-9]*/[0-9]*' | cut -d/ -f2; }
before=$(jobs)
tmux send-keys -t "$s" s; sleep 0.3; tmux send-keys -t "$s" Enter; sleep 0.5
after=$(jobs)
[[ $after == $((before + 1)) ]] || fail "submit: jobs $before -> $after"
tmux send-keys -t "$s" p; sleep 0.3; tmux send-keys -t "$s" Down; sleep 0.2; tmux send-keys -t "$s" Enter; sleep 0.3
tmux send-keys -t "$s" ' '; sleep 2; tmux send-keys -t "$s" ' '; sleep 0.3
tmux send-keys -t "$s" i; sleep 0.5
insp=$(tmux capture-pane -t "$s" -p)
[[ $insp == *"fs m"* ]] || fail "inspector shows no fair shares"
tmux send-keys -t "$s" Escape; sleep 0.3
tmux send-keys -t "$s" '?'; sleep 0.5
[[ $(tmux capture-pane -t "$s" -p) == *quit* ]] || fail "help lacks quit"
tmux send-keys -t "$s" Escape; sleep 0.3
tmux send-keys -t "$s" q; sleep 1
[[ $(cat "$out") == 0 ]] || fail "exit status $(cat "$out")"
tmux kill-session -t "$s" 2>/dev/null || true
echo "ok: TUI smoke at $size"
