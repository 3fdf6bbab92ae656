package checker

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/rebalance-ref/rebalance/checker/hugeheap"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// BenchmarkExplore explores each protocol's default world (the one
// rebalance check explores) completely: with liveness on one and on two
// workers, and safety only on one (the mode compared with TLC in
// tla/compare.sh), and reports distinct states per second and the bytes the checker stores
// per state (seen set, per-state records and liveness graph). Run it with
//
//	go test ./checker -run XXX -bench 'Explore$' -benchtime 1x -count 5
//
// and compare the worker counts with benchstat. A one-worker row still
// has every core, and its collector marks on the idle one; with -cpu 1,2
// the rows run at GOMAXPROCS 1 as well, and workers=1 at GOMAXPROCS 1
// against workers=2 at 2 is the speed-up of one core to two
// (docs/checker-rounds.md, "Issue 13: twelfth round").
func BenchmarkExplore(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent)) // as rebalance check sets it
	adviseAsCheck()
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

// BenchmarkExploreRecords explores each protocol's world as rebalance
// check explores it by default, with delivery on (one record on T-0: the
// world of the acceptance measurement, `rebalance check --workers 1
// --no-liveness`), safety only on one worker. Run it with
//
//	go test ./checker -run XXX -bench ExploreRecords -benchtime 1x -count 6
func BenchmarkExploreRecords(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent)) // as rebalance check sets it
	adviseAsCheck()
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental", "nextgen"} {
		b.Run("protocol="+p, func(b *testing.B) {
			var r Result
			for b.Loop() {
				var err error
				r, err = exploreWorld(p, 1, Options{Workers: 1, NoLiveness: true})
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

// adviseAsCheck puts the heap on huge pages as rebalance check does by
// default: unless hugeheap.SmallByDefault gives a reason not to.
func adviseAsCheck() {
	if hugeheap.SmallByDefault() == "" {
		hugeheap.Advise(hugeheap.DefaultSize)
	}
}

func exploreDefault(protocol string, o Options) (Result, error) { return exploreWorld(protocol, 0, o) }

// exploreWorld explores protocol's default world, with records records on
// T-0 (none when 0).
func exploreWorld(protocol string, records int, o Options) (Result, error) {
	var on []string
	if records > 0 {
		on = []string{"T-0"}
	}
	if protocol == "nextgen" {
		wo := ngworld.DefaultCheckOptions()
		wo.Records, wo.RecordsOn = records, on
		cfg, err := ngworld.CheckWorld(wo)
		if err != nil {
			return Result{}, err
		}
		m, err := ngworld.NewModel(cfg)
		if err != nil {
			return Result{}, err
		}
		return Explore(m, o)
	}
	wo := classicworld.DefaultCheckOptions()
	wo.Records, wo.RecordsOn = records, on
	cfg, err := classicworld.CheckWorld(protocol, wo)
	if err != nil {
		return Result{}, err
	}
	m, err := classicworld.NewModel(cfg)
	if err != nil {
		return Result{}, err
	}
	return Explore(m, o)
}
