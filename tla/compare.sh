#!/usr/bin/env bash
# tla/compare.sh [--runs R] [--min-seconds S] [CONFIG...] times TLC and
# `rebalance check` side by side on the same worlds: each configuration in
# tla/configs (by default the two default-bounds worlds,
# classic-cooperative-m3j1t2p2c1l1d1 and nextgen-m3j1t2p2c1l1d1), safety
# only and with liveness, TLC with one worker and no graph dump (tlc.sh
# dumps it for the cross-check; this script does not), our checker on all
# cores and on one worker, in turn, right after TLC: at least R times each
# (default 3), and more until the one-worker runs add up to S seconds
# (default 5), at most 25 times or R if more. It prints one row per
# configuration and mode, and the load average before and after, so a
# loaded machine shows in the numbers.
#
# The configuration's leading comment is the `rebalance check` command of
# the same world; the script runs it with --workers $(nproc) and
# --workers 1 (and --no-liveness for the safety-only row). TLC's time
# includes the JVM's start; its rate is distinct states over that time, as
# ours is distinct states over the exploration's time. Both must count the
# same states (the specs' graphs equal the Go worlds'), or the script stops.
# TLC runs once a row (it takes ten to a hundred times as long); our side
# runs several times because one run of a few seconds carries the
# machine's noise, which on a small VM is tens of percent (docs/checker-rounds.md),
# and the all-cores column divides two such runs. The shortest rows (eager,
# a quarter of a second a run) carry the most: the first run after TLC's
# JVM exits, or after an idle pause, takes memory the host must supply
# again, so one run in three can move their median; hence the S seconds,
# which give a row of 0.25 s runs twenty of them and a row of 3 s runs R.
#
# Columns: states; TLC's seconds and states/s; ours on one worker, seconds,
# states/s and the ratio to TLC's; ours on all N cores, states/s and the
# speed-up over one worker (to two decimals, as hw: a speed-up's target,
# 1.7x, is closer than one decimal tells); the bytes a state costs in our
# checker's store (the seen set, per-state records and, with liveness, the
# graph: the figure the 32-byte target is about); the peak resident memory
# of TLC's JVM and of our one-worker process, in MiB (GNU time; "-"
# without it).
# Our seconds, rates and memory are the medians of the row's runs, and the
# speed-up is the ratio of the two median rates. Below the table, each
# row's runs: our seconds on all cores and on one worker, in run order.
#
# The column hw is what the machine allows the speed-up column on this
# row: as many times as the row's runs, in turn, one single-worker check
# alone and N of them side by side, each held to one core (GOMAXPROCS=1,
# so its collector works on that core too); hw is N times the median time
# alone over the median time of the slowest of the N side by side, the
# throughput N independent processes get out of N cores on this world.
# A checker whose workers shared nothing would show that speed-up at best
# (less, since the one-worker column's collector has the idle cores to
# itself); where the cores share a memory system, hw is below N
# (docs/checker-rounds.md, issue 13's twenty-first round). Below the
# table, each row's times alone and side by side.
#
# The last column, busy, is the median over the all-cores runs of the
# share of the workers' time in the exploration's levels that went into
# expanding states (rebalance check's workers_busy): the rest they waited
# at the levels' ends, for the last states of a level or the merge before
# the next. Where the speed-up column falls short of hw, a busy well
# below 1 puts the shortfall on the levels; a busy near 1, on the workers
# slowing each other down in the one process (its collector, shared
# tables).
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

runs=3
min_seconds=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs)
      runs="${2:-}"
      shift 2 || shift
      if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
        echo "compare.sh: --runs wants a whole number of runs, at least 1, not '$runs'" >&2
        exit 2
      fi
      ;;
    --min-seconds)
      min_seconds="${2:-}"
      shift 2 || shift
      if ! [[ "$min_seconds" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
        echo "compare.sh: --min-seconds wants a number of seconds, 0 or more, not '$min_seconds'" >&2
        exit 2
      fi
      ;;
    -*)
      echo "compare.sh: unknown option '$1' (want --runs R, --min-seconds S, then configurations)" >&2
      exit 2
      ;;
    *) break ;;
  esac
done
# most_runs caps the runs a row takes to reach min_seconds.
most_runs=$((runs > 25 ? runs : 25))

configs=("$@")
if [[ ${#configs[@]} -eq 0 ]]; then
  configs=(classic-cooperative-m3j1t2p2c1l1d1 nextgen-m3j1t2p2c1l1d1)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd .. && go build -o "$tmp/rebalance" ./cmd/rebalance)

# rate N SECONDS is N per second; ratio A B [D] is A/B as "2.5x", to D
# decimals (default 1). Both read "-" where the divisor is not positive.
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { if (a != "-" && b > 0) printf ("%." d "fx"), a / b; else printf "-" }'; }
# secs V... lists the seconds V... to the millisecond, in one line.
secs() { printf '%s\n' "$@" | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }'; }
# median V... is the middle one of the numbers V... (the mean of the two
# middle ones for an even count), or "-" when one of them is "-".
median() {
  printf '%s\n' "$@" | sort -g | awk '$1 == "-" { dash = 1 } { v[NR] = $1 }
    END { if (dash) printf "-"; else if (NR % 2) printf "%.6f", v[(NR + 1) / 2]; else printf "%.6f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# GNU time gives each process's peak resident memory; without it the
# memory columns read "-".
gnutime=()
if /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
  gnutime=(/usr/bin/time -f %M -o "$tmp/rss")
fi
peak_mib() {
  if [[ ${#gnutime[@]} -gt 0 && -s "$tmp/rss" ]]; then awk '{ printf "%.0f", $1 / 1024 }' "$tmp/rss"; else echo -; fi
}

# field NAME [FILE] is the number NAME in the summary line of rebalance
# check --json (its first line, one JSON object) in FILE, by default
# $tmp/go.json.
field() { head -1 "${2:-$tmp/go.json}" | { grep -o "\"$1\": *[-0-9.e+]*" || true; } | head -1 | sed 's/.*: *//'; }

# gocheck WORKERS: runs our side of the row once with WORKERS workers and
# sets go_n (distinct states), go_s (the exploration's seconds), go_b
# (bytes per state the checker stores, rounded for the table), go_m
# (peak resident MiB) and go_busy (the workers' busy share).
gocheck() {
  rm -f "$tmp/rss"
  "${gnutime[@]}" "$tmp/rebalance" check "${cmd[@]}" --records 0 --workers "$1" "${extra[@]}" --json >"$tmp/go.json" ||
    { cat "$tmp/go.json" >&2; echo "compare.sh: rebalance check --workers $1 failed on $name" >&2; exit 1; }
  go_n=$(field distinct_states) go_s=$(field elapsed_seconds) go_b=$(field bytes_per_state) go_busy=$(field workers_busy)
  [[ -n "$go_n" && -n "$go_s" && -n "$go_b" && -n "$go_busy" ]] || { cat "$tmp/go.json" >&2; echo "compare.sh: no counts in rebalance check's summary on $name" >&2; exit 1; }
  go_b=$(awk -v b="$go_b" 'BEGIN { printf "%.1f", b }')
  go_m=$(peak_mib)
}

# hwrun: runs our side of the row with one worker on one core, alone and
# then $all side by side, and appends the time alone to hw_alone and the
# slowest time side by side to hw_side (seconds of exploration).
hwrun() {
  local k v pids=() slowest=0
  GOMAXPROCS=1 "$tmp/rebalance" check "${cmd[@]}" --records 0 --workers 1 "${extra[@]}" --json >"$tmp/go.json" ||
    { cat "$tmp/go.json" >&2; echo "compare.sh: rebalance check --workers 1 (GOMAXPROCS=1) failed on $name" >&2; exit 1; }
  v=$(field elapsed_seconds)
  [[ -n "$v" ]] || { cat "$tmp/go.json" >&2; echo "compare.sh: no time in rebalance check's summary on $name" >&2; exit 1; }
  hw_alone+=("$v")
  for ((k = 0; k < all; k++)); do
    GOMAXPROCS=1 "$tmp/rebalance" check "${cmd[@]}" --records 0 --workers 1 "${extra[@]}" --json >"$tmp/side$k.json" &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do
    wait "${pids[$k]}" || { cat "$tmp/side$k.json" >&2; echo "compare.sh: $all side-by-side checks failed on $name" >&2; exit 1; }
    v=$(field elapsed_seconds "$tmp/side$k.json")
    [[ -n "$v" ]] || { cat "$tmp/side$k.json" >&2; echo "compare.sh: no time in a side-by-side check's summary on $name" >&2; exit 1; }
    slowest=$(awk -v m="$slowest" -v v="$v" 'BEGIN { printf "%s", (v > m ? v : m) }')
  done
  hw_side+=("$slowest")
}

all=$(nproc)
spread=()
hwspread=()
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "TLC: 1 worker; go: rebalance check --workers $all (all cores), then --workers 1, in turn, at least $runs runs each and until the one-worker runs add up to ${min_seconds} s (at most $most_runs): medians"
printf '%-36s %-8s %7s %6s %6s %6s %7s %6s %7s %5s %4s %5s %5s %5s %4s\n' \
  config mode states tlc-s tlc/s go-s go/s go/tlc go$all/s $all/1 B/st tlcMB goMB hw busy
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
    rm -rf "$tmp/states" "$tmp/rss"
    start=$(date +%s.%N)
    "${gnutime[@]}" java -XX:+UseParallelGC -cp "$TLA2TOOLS_JAR" tlc2.TLC -workers 1 -deadlock -noGenerateSpecTE \
      -config "$tmp/run.cfg" -metadir "$tmp/states" "$module.tla" >"$tmp/tlc.log" 2>&1 ||
      { cat "$tmp/tlc.log" >&2; echo "compare.sh: TLC failed on $name" >&2; exit 1; }
    end=$(date +%s.%N)
    tlc_m=$(peak_mib)
    tlc_secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
    tlc_s=$(awk -v s="$tlc_secs" 'BEGIN { printf "%.2f", s }')
    tlc_n=$({ grep -o '[0-9,]* distinct states found' "$tmp/tlc.log" || true; } | tail -1 | tr -d , | awk '{print $1}')
    [[ -n "$tlc_n" ]] || { cat "$tmp/tlc.log" >&2; echo "compare.sh: no state count in TLC's output on $name" >&2; exit 1; }
    # The specs have no records: the Go side leaves delivery out too.
    one_secs=() all_secs=() one_mib=() all_busy=() one_total=0
    for ((run = 0; run < most_runs; run++)); do
      if ((run >= runs)) && awk -v t="$one_total" -v m="$min_seconds" 'BEGIN { exit !(t >= m) }'; then
        break
      fi
      gocheck "$all"
      all_n=$go_n
      all_secs+=("$go_s")
      all_busy+=("$go_busy")
      gocheck 1
      one_secs+=("$go_s")
      one_total=$(awk -v t="$one_total" -v s="$go_s" 'BEGIN { printf "%.6f", t + s }')
      one_mib+=("$go_m")
      # The specs' state graphs equal the Go worlds' (docs/tla.md): a row
      # whose counts differ compares different worlds.
      if [[ "$go_n" != "$tlc_n" || "$all_n" != "$tlc_n" ]]; then
        echo "compare.sh: $name $mode: TLC found $tlc_n states, rebalance check $go_n (1 worker) and $all_n ($all workers)" >&2
        exit 1
      fi
    done
    spread+=("$(printf '%-36s %-8s %s | %s' "$name" "$mode" "$(secs "${all_secs[@]}")" "$(secs "${one_secs[@]}")")")
    hw_alone=() hw_side=()
    for ((run = 0; run < ${#one_secs[@]}; run++)); do
      hwrun
    done
    hwspread+=("$(printf '%-36s %-8s %s | %s' "$name" "$mode" "$(secs "${hw_alone[@]}")" "$(secs "${hw_side[@]}")")")
    hw=$(awk -v n="$all" -v a="$(median "${hw_alone[@]}")" -v p="$(median "${hw_side[@]}")" 'BEGIN { if (p > 0) printf "%.2fx", n * a / p; else printf "-" }')
    go_secs=$(median "${one_secs[@]}")
    go_r=$(rate "$go_n" "$go_secs") all_r=$(rate "$go_n" "$(median "${all_secs[@]}")")
    go_s=$(awk -v s="$go_secs" 'BEGIN { printf "%.2f", s }')
    go_m=$(median "${one_mib[@]}")
    [[ "$go_m" == - ]] || go_m=$(awk -v m="$go_m" 'BEGIN { printf "%.0f", m }')
    tlc_r=$(rate "$tlc_n" "$tlc_secs")
    busy=$(awk -v b="$(median "${all_busy[@]}")" 'BEGIN { printf "%.2f", b }')
    printf '%-36s %-8s %7s %6s %6s %6s %7s %6s %7s %5s %4s %5s %5s %5s %4s\n' "$name" "$mode" "$tlc_n" "$tlc_s" "$tlc_r" \
      "$go_s" "$go_r" "$(ratio "$go_r" "$tlc_r")" "$all_r" "$(ratio "$all_r" "$go_r" 2)" "$go_b" "$tlc_m" "$go_m" "$hw" "$busy"
  done
done
echo "runs (seconds; all $all cores | one worker):"
printf '%s\n' "${spread[@]}"
echo "hw runs (seconds, one worker on one core; alone | the slowest of $all side by side):"
printf '%s\n' "${hwspread[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
