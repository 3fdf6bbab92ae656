#!/bin/sh
# The runs behind docs/performance.md: run from the repository root on a
# quiet machine. Writes the raw outputs and benchstat's tables into
# docs/bench/, and the load average before each step into docs/bench/runs.log.
set -e
B=docs/bench
go test -c -o /tmp/assign.test ./model/assign/
log() { echo "$(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/') $*" >> $B/runs.log; }
: > $B/runs.log

log "uniform target"
/tmp/assign.test -test.run XXX -test.bench 'BenchmarkUniformHomogeneous$' -test.benchtime 20x -test.count 20 > $B/uniform-quiet.txt

log "franz-go pairs"
: > $B/pairs-quiet.txt
for i in 1 2 3 4 5 6; do
  REBALANCE_BENCH_GRID=pairs /tmp/assign.test -test.run XXX -test.bench 'BenchmarkCooperativeSticky$' \
    -test.benchtime 3x -test.count 1 -test.timeout 1h >> $B/pairs-quiet.txt
done

log "flow and many racks"
/tmp/assign.test -test.run XXX -test.bench 'BenchmarkStickyComponentsOverlapping|BenchmarkStickyRacksMany' \
  -test.benchtime 3x -test.count 6 > $B/flow.txt

log "grid"
REBALANCE_BENCH_GRID=full /tmp/assign.test -test.run XXX \
  -test.bench 'BenchmarkRange$|BenchmarkRoundRobin|BenchmarkSticky$|BenchmarkCooperativeStickyGrid|BenchmarkUniform$|BenchmarkUniformRackAware|BenchmarkServerRange|BenchmarkConnectLeastLoaded' \
  -test.benchtime 1x -test.count 3 -test.timeout 3h > $B/grid-full.txt
log "end"

BS=${BENCHSTAT:-$HOME/go/bin/benchstat}
$BS $B/uniform-quiet.txt > $B/uniform-benchstat.txt
$BS -col /impl $B/pairs-quiet.txt > $B/pairs-benchstat.txt
$BS $B/flow.txt > $B/flow-benchstat.txt
$BS $B/grid-full.txt > $B/grid-benchstat.txt
