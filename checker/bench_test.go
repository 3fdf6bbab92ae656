package checker

import (
	"fmt"
	"runtime/debug"
	"testing"

	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// BenchmarkExplore explores each protocol's default world (the one
// rebalance check explores) completely: with liveness on one and on two
// workers, and safety only on one (the mode compared with TLC in
// tla/compare.sh), and reports distinct states per second and the bytes the checker stores
// per state (seen set, per-state records and liveness graph). Run it with
//
//	go test ./checker -run XXX -bench Explore -benchtime 1x -count 5
//
// and compare the worker counts with benchstat.
func BenchmarkExplore(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(200)) // as rebalance check sets it
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental", "nextgen"} {
		for _, c := range []struct {
			workers  int
			liveness bool
		}{{1, true}, {2, true}, {1, false}} {
			name := fmt.Sprintf("protocol=%s/liveness=%t/workers=%d", p, c.liveness, c.workers)
			b.Run(name, func(b *testing.B) {
				var r Result
				for b.Loop() {
					var err error
					r, err = exploreDefault(p, Options{Workers: c.workers, NoLiveness: !c.liveness})
					if err != nil {
						b.Fatal(err)
					}
					if !r.Complete || len(r.Violations) > 0 {
						b.Fatalf("%s: complete=%v violations=%v", p, r.Complete, r.Violations)
					}
				}
				b.ReportMetric(r.StatesPerSecond(), "states/s")
				b.ReportMetric(float64(r.StoredBytes)/float64(r.Distinct), "bytes/state")
				b.ReportMetric(float64(r.Distinct), "states")
			})
		}
	}
}

func exploreDefault(protocol string, o Options) (Result, error) {
	if protocol == "nextgen" {
		cfg, err := ngworld.CheckWorld(ngworld.DefaultCheckOptions())
		if err != nil {
			return Result{}, err
		}
		m, err := ngworld.NewModel(cfg)
		if err != nil {
			return Result{}, err
		}
		return Explore(m, o)
	}
	cfg, err := classicworld.CheckWorld(protocol, classicworld.DefaultCheckOptions())
	if err != nil {
		return Result{}, err
	}
	m, err := classicworld.NewModel(cfg)
	if err != nil {
		return Result{}, err
	}
	return Explore(m, o)
}
