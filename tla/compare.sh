#!/usr/bin/env bash
# tla/compare.sh [CONFIG...] times TLC and `rebalance check` side by side on
# the same worlds: each configuration in tla/configs (by default the two
# default-bounds worlds, classic-cooperative-m3j1t2p2c1l1d1 and
# nextgen-m3j1t2p2c1l1d1), safety only and with liveness, one worker each,
# no graph dump on TLC's side (tlc.sh dumps it for the cross-check; this
# script does not). It prints one row per configuration and mode, and the
# load average before and after, so a loaded machine shows in the numbers.
#
# The configuration's leading comment is the `rebalance check` command of
# the same world; the script runs it with --workers 1 (and --no-liveness for
# the safety-only row). TLC's time includes the JVM's start; its rate is
# distinct states over that time, as ours is distinct states over the
# exploration's time.
#
# TLC is not installed by anything in this repository: set TLA2TOOLS_JAR
# to a tla2tools.jar (docs/tla.md says how to get one).
set -euo pipefail

if [[ -z "${TLA2TOOLS_JAR:-}" || ! -f "${TLA2TOOLS_JAR}" ]]; then
  echo "compare.sh: set TLA2TOOLS_JAR to the path of a tla2tools.jar" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

configs=("$@")
if [[ ${#configs[@]} -eq 0 ]]; then
  configs=(classic-cooperative-m3j1t2p2c1l1d1 nextgen-m3j1t2p2c1l1d1)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd .. && go build -o "$tmp/rebalance" ./cmd/rebalance)

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-38s %-9s %10s %8s %9s %10s %8s %9s %7s\n' config mode tlc-states tlc-s tlc/s go-states go-s go/s go/tlc
for name in "${configs[@]}"; do
  cfg="configs/$name.cfg"
  [[ -f "$cfg" ]] || { echo "compare.sh: no $cfg" >&2; exit 2; }
  case "$name" in
    classic-*) module=MCClassic ;;
    nextgen-*) module=MCNextGen ;;
    *) echo "compare.sh: $name: want a classic- or nextgen- configuration" >&2; exit 2 ;;
  esac
  # The leading comment lines hold the command, possibly over several lines.
  read -r -a cmd <<<"$(awk '/^\\\*/ { sub(/^\\\* */, ""); printf "%s ", $0; next } { exit }' "$cfg" | sed 's/^rebalance check //')"
  for mode in safety liveness; do
    if [[ $mode == safety ]]; then
      sed '/^PROPERTIES/,$d' "$cfg" >"$tmp/run.cfg"
      extra=(--no-liveness)
    else
      cp "$cfg" "$tmp/run.cfg"
      extra=()
    fi
    rm -rf "$tmp/states"
    start=$(date +%s.%N)
    java -XX:+UseParallelGC -cp "$TLA2TOOLS_JAR" tlc2.TLC -workers 1 -deadlock -noGenerateSpecTE \
      -config "$tmp/run.cfg" -metadir "$tmp/states" "$module.tla" >"$tmp/tlc.log" 2>&1 ||
      { cat "$tmp/tlc.log" >&2; echo "compare.sh: TLC failed on $name" >&2; exit 1; }
    end=$(date +%s.%N)
    tlc_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    tlc_n=$(grep -o '[0-9,]* distinct states found' "$tmp/tlc.log" | tail -1 | tr -d , | awk '{print $1}')
    # The specs have no records: the Go side leaves delivery out too.
    "$tmp/rebalance" check "${cmd[@]}" --records 0 --workers 1 "${extra[@]}" --json >"$tmp/go.json" ||
      { cat "$tmp/go.json" >&2; echo "compare.sh: rebalance check failed on $name" >&2; exit 1; }
    read -r go_n go_s < <(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d["distinct_states"], "%.2f" % d["elapsed_seconds"])' "$tmp/go.json")
    tlc_r=$(rate "$tlc_n" "$tlc_s")
    go_r=$(rate "$go_n" "$go_s")
    printf '%-38s %-9s %10s %8s %9s %10s %8s %9s %6.1fx\n' "$name" "$mode" "$tlc_n" "$tlc_s" "$tlc_r" "$go_n" "$go_s" "$go_r" \
      "$(awk -v g="$go_r" -v t="$tlc_r" 'BEGIN { print g / t }')"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
