#!/usr/bin/env bash
# tla/tlc.sh [CONFIG...] runs TLC on each configuration in tla/configs (all
# of them when none is named) and writes tla/golden/<config>.json, and the
# whole state graph beside it when it is small, through tla/cmd/tlcgolden.
#
# TLC is not installed by anything in this repository: set TLA2TOOLS_JAR to
# a tla2tools.jar (docs/tla.md says how to get one). TLC_WORKERS sets the
# worker count (default 2). classic-*.cfg configurations check
# MCClassic.tla, nextgen-*.cfg ones MCNextGen.tla. TLC runs with -deadlock
# (a state without successors is not an error: the liveness properties
# decide whether it is converged) and dumps its graph with
# -dump dot,actionlabels; its scratch files go to a temporary directory.
# It runs with -noGenerateSpecTE: after finding an error TLC would
# otherwise write a trace-explorer spec (<Module>_TTrace_<time>.tla and
# .bin) beside the specs in tla/, where it has no business (the golden
# files' spec digests name their .tla files explicitly, so such a file
# would not make them stale, but it would still be a stray to delete).
set -euo pipefail

if [[ -z "${TLA2TOOLS_JAR:-}" || ! -f "${TLA2TOOLS_JAR}" ]]; then
  echo "tlc.sh: set TLA2TOOLS_JAR to the path of a tla2tools.jar" >&2
  exit 2
fi
workers="${TLC_WORKERS:-2}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

configs=("$@")
if [[ ${#configs[@]} -eq 0 ]]; then
  for f in configs/*.cfg; do configs+=("$(basename "$f" .cfg)"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd .. && go build -o "$tmp/tlcgolden" ./tla/cmd/tlcgolden)
mkdir -p golden

for name in "${configs[@]}"; do
  cfg="configs/$name.cfg"
  [[ -f "$cfg" ]] || { echo "tlc.sh: no $cfg" >&2; exit 2; }
  case "$name" in
    classic-*) module=MCClassic ;;
    nextgen-*) module=MCNextGen ;;
    *) echo "tlc.sh: $name: want a classic- or nextgen- configuration" >&2; exit 2 ;;
  esac
  rm -rf "$tmp/run" && mkdir -p "$tmp/run"
  start=$(date +%s.%N)
  if ! java -XX:+UseParallelGC -cp "$TLA2TOOLS_JAR" tlc2.TLC -workers "$workers" -deadlock -noGenerateSpecTE \
      -config "$cfg" -metadir "$tmp/run/states" -dump dot,actionlabels "$tmp/run/graph.dot" \
      "$module.tla" >"$tmp/run/tlc.log" 2>&1; then
    cat "$tmp/run/tlc.log" >&2
    echo "tlc.sh: TLC failed on $name" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  "$tmp/tlcgolden" -config "$name" -cfg "$cfg" -module "$module" -specdir . \
    -log "$tmp/run/tlc.log" -dot "$tmp/run/graph.dot" -seconds "$seconds" -workers "$workers" -out golden
done
