#!/usr/bin/env bash
# Regenerates the reports and pictures docs/costs.md shows, from the
# repository's root:
#   docs/costs/make.sh
# Every run is simulated time, seeded: the same command gives the same files.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=docs/costs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rebalance" ./cmd/rebalance
sim() { "$tmp/rebalance" simulate --quiet "$@"; }

# The issue's report: a rolling restart of 30 members over 4 topics of 64
# partitions, all five protocols.
sim --workload rolling-restart --members 30 --topics 4 --partitions 64 --protocol all --html $out/rolling-restart.html
sim --workload rolling-restart --members 30 --topics 4 --partitions 64 --protocol all \
  --svg "$tmp/rolling-restart" --csv $out/rolling-restart.csv
# The same with static membership (KIP-345).
sim --workload rolling-restart --static --members 30 --topics 4 --partitions 64 --protocol all \
  --svg "$tmp/rolling-restart-static" --csv $out/rolling-restart-static.csv
# Scaling out by 3 members.
sim --workload scale-out --count 3 --members 30 --topics 4 --partitions 64 --protocol all \
  --svg "$tmp/scale-out" --csv $out/scale-out.csv
# One member pauses for a minute (its session expires) and comes back.
sim --workload pause --pause 60s --members 30 --topics 4 --partitions 64 --protocol all \
  --svg "$tmp/pause" --csv $out/pause.csv
# One member crashes for good.
sim --workload crash --members 30 --topics 4 --partitions 64 --protocol all \
  --svg "$tmp/crash" --csv $out/crash.csv

# Design III's bound: the rolling restart under incremental with K moves
# a round for K = 1, 2, 4 and 8 (rows incremental-max-moves-K), against
# cooperative.
sim --workload rolling-restart --members 30 --topics 4 --partitions 64 --protocol cooperative,incremental \
  --max-moves 1,2,4,8 --svg "$tmp/bound" --csv $out/design-iii-bound.csv
cp "$tmp/bound/unavailable.svg" "$out/design-iii-bound-unavailable.svg"

# The pictures the page shows: every workload's unavailability, and the
# rolling restart's cooperative and next-gen ownership timelines (eager's
# is 1.4 MB of moves: it is in the HTML report).
cp "$tmp/rolling-restart/unavailable.svg" docs/costs.svg # the headline picture, next to the page
for w in rolling-restart-static scale-out pause crash; do
  cp "$tmp/$w/unavailable.svg" "$out/$w-unavailable.svg"
done
cp "$tmp/rolling-restart/ownership-cooperative.svg" "$out/rolling-restart-ownership-cooperative.svg"
cp "$tmp/rolling-restart/ownership-nextgen.svg" "$out/rolling-restart-ownership-nextgen.svg"

# A failure of the random runs drawn as the same timeline: the next-gen
# coordinator with a fault switch that hands a member its target at once,
# before the previous owner released it (ExclusiveOwnership broken: T-3
# has two lanes at the end). random exits 1 on a violation.
"$tmp/rebalance" random --protocol nextgen --runs 1 --seed 291 --steps 60 --fault straight-to-target \
  --timeline "$tmp/random" >/dev/null || test $? = 1
cp "$tmp/random/nextgen-seed291-ExclusiveOwnership.svg" "$out/random-failure-nextgen.svg"
