package checker

// GCPercent is the collector setting (GOGC) that rebalance check explores
// at unless GOGC is set in the environment, and the benchmarks with it:
// collect when the heap reaches five times the live heap, not twice.
//
// The explorer keeps its frontier of concrete states alive and makes much
// short-lived garbage. Against 200 and 800 in fresh processes, 400 was
// the fastest on the default worlds (docs/checker-rounds.md, issue 13's
// fifth round). With two workers, where the collector has no idle core, it
// still is; with one, 200 is faster when the process must take memory the
// host no longer backs and slower when it reuses memory just freed
// (seventeenth round), so the choice there turns on the host. It costs
// peak memory, about 1.6 times that at 200; near the memory limit the
// runtime collects harder instead.
const GCPercent = 400
