package checker

// GCPercent is the collector setting (GOGC) that rebalance check explores
// at unless GOGC is set in the environment, and the benchmarks with it:
// collect when the heap reaches five times the live heap, not twice.
//
// The explorer keeps its frontier of concrete states alive and makes much
// short-lived garbage. Against 200 and 800 in fresh processes, 400 was
// the fastest on the default worlds (docs/checker-rounds.md, issue 13's
// fifth round). With two workers, where the collector has no idle core, it
// still is, by up to 18 % (twenty-fifth round). With one worker the
// collector runs on the idle core. There 200 was slower or faster by
// round (seventeenth), and in the twenty-fifth it was as fast on
// incremental and next-gen safety only, 5 % to 10 % faster on most of
// the rest, and held a third less memory. One setting for every worker
// count keeps the two-worker speed-up the comparison reports a measure of
// the explorer alone. 400 costs peak memory, 1.3 to 1.5 times that at 200;
// near the memory limit the runtime collects harder instead.
const GCPercent = 400
