package cost

import "testing"

// largeRollingRestart is the benchmark's run: a rolling restart of 1,000
// dynamic members over 10 topics of 10,000 partitions.
func largeRollingRestart(protocol string) Config {
	return Config{Protocol: protocol, Members: 1000, Topics: 10, Partitions: 10000, Workload: Workload{Kind: RollingRestart}}
}

// BenchmarkRollingRestartLarge runs largeRollingRestart for every
// protocol, one sub-benchmark each, and once more for incremental with
// Design III's bound raised to a member's share of the resources (100
// moves a round, Config.MaxMovesPerRound), reporting ns/op and
// allocations. One iteration is enough (and takes minutes):
//
//	go test -run '^$' -bench BenchmarkRollingRestartLarge -benchtime 1x -benchmem -timeout 2h ./model/cost/
//
// Besides ns/op it reports cpu-ns/op, the process's CPU time (the
// collector's included), which other work on a shared machine disturbs
// less than the wall clock.
//
// Almost all of its time is the cores' (the classic leader's assignment
// round and the members' metadata, the next-gen target computation), not
// the engine's.
func BenchmarkRollingRestartLarge(b *testing.B) {
	runs := map[string]Config{}
	for _, p := range Protocols() {
		runs[p] = largeRollingRestart(p)
	}
	bounded := largeRollingRestart("incremental")
	bounded.MaxMovesPerRound = 100
	runs["incremental-max-moves-100"] = bounded
	for _, name := range append(Protocols(), "incremental-max-moves-100") {
		cfg := runs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			clock := startCPUClock()
			defer clock.report(b)
			for b.Loop() {
				r, err := Run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if !r.Metrics.Converged {
					b.Fatalf("%s did not converge: %+v", name, r.Metrics)
				}
				b.ReportMetric(float64(r.End-r.Start)/1000, "sim-s")
				b.ReportMetric(float64(r.Metrics.Rounds), "rounds")
				b.ReportMetric(float64(r.Metrics.Moves), "moves")
				b.ReportMetric(r.Metrics.UnavailableResourceSeconds, "unavail-res-s")
			}
		})
	}
}

// BenchmarkRollingRestart runs a rolling restart of 100 dynamic members
// over 10 topics of 1,000 partitions for every protocol: a tenth of
// largeRollingRestart's members and resources, a hundredth of its work,
// small enough to repeat for benchstat:
//
//	go test -run '^$' -bench 'BenchmarkRollingRestart$' -count 6 -benchmem ./model/cost/
//
// It reports cpu-ns/op as BenchmarkRollingRestartLarge does.
func BenchmarkRollingRestart(b *testing.B) {
	for _, p := range Protocols() {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			clock := startCPUClock()
			defer clock.report(b)
			for b.Loop() {
				r, err := Run(Config{Protocol: p, Members: 100, Topics: 10, Partitions: 1000, Workload: Workload{Kind: RollingRestart}})
				if err != nil {
					b.Fatal(err)
				}
				if !r.Metrics.Converged {
					b.Fatalf("%s did not converge: %+v", p, r.Metrics)
				}
			}
		})
	}
}
