package fuzz_test

import (
	"fmt"
	"os"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/spec"
)

// A counterexample pinned in a test: read the group the harness printed,
// and judge the assignor on it.
func ExampleJudge() {
	g, err := fuzz.ParseGroup(`
topics a:3 b:3
member m0 generation=1 topics=a,b
member m1 generation=1 topics=a,b
`)
	if err != nil {
		panic(err)
	}
	// Range keeps each topic within one; round-robin does not keep the
	// two topics' partition numbers together.
	fmt.Println(fuzz.Judge(assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.TopicBalanced, fuzz.CoPartitioned}}, g))
	err = fuzz.Judge(assign.RoundRobin(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.CoPartitioned}}, g)
	fmt.Println(err.(*fuzz.Failure).Guarantee)
	// Output:
	// <nil>
	// CoPartitioned
}

// Declaring a guarantee an assignor does not have fails, naming the
// guarantee, with the shortest group rapid finds.
func ExampleFind() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	wd, _ := os.Getwd()
	defer func() { _ = os.Chdir(wd) }()
	_ = os.Chdir(dir) // rapid saves the failing input under testdata/rapid
	// Range balances each topic, not the members' totals.
	f, err := fuzz.Find(assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Balanced}})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Guarantee)
	// Output:
	// Balanced
}

// A guarantee of your own: here, that no member is given more than twice
// the partitions of the least loaded one, judged on settled rounds.
func ExampleProperty() {
	twice := fuzz.Property("AtMostTwiceTheLeast", true, func(r fuzz.Round) error {
		least, most := -1, 0
		for _, m := range r.Group.Members {
			n := r.Assigned[m.ID].Len()
			if least < 0 || n < least {
				least = n
			}
			most = max(most, n)
		}
		if least > 0 && most > 2*least {
			return fmt.Errorf("a member holds %d, another %d", most, least)
		}
		return nil
	})
	g, _ := fuzz.ParseGroup("topics a:5\nmember x topics=a\nmember y topics=a\n")
	fmt.Println(fuzz.Judge(assign.Sticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{twice}}, g))
	// Output:
	// <nil>
}

// Groups print in a form that reads back.
func ExampleFormatGroup() {
	g := assign.Group{
		Topics: spec.Topics{"orders": 2},
		Members: []assign.Member{
			{ID: "a", Topics: []string{"orders"}, Owned: spec.NewSet(spec.TP("orders", 0)), Generation: 3, InstanceID: "host-1"},
			{ID: "b", Topics: []string{"orders"}, Generation: spec.NoGeneration, Rack: "r1"},
		},
	}
	text := fuzz.FormatGroup(g)
	fmt.Print(text)
	back, err := fuzz.ParseGroup(text)
	fmt.Println(err, fuzz.FormatGroup(back) == text)
	// Output:
	// topics orders:2
	// member a generation=3 topics=orders owned=orders-0 instance=host-1
	// member b generation=-1 topics=orders rack=r1
	// <nil> true
}

// A protocol of your own in the closed worlds: here the project's
// cooperative protocol running a given assignor, in a world small enough
// for an example.
func ExampleFindProtocol() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	failures, err := fuzz.FindProtocol(policy.CooperativeWith(assign.CooperativeSticky()), fuzz.Bounds{
		Check:     fuzz.World{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1},
		NoRandom:  true,
		MaxRounds: 2,
		Dir:       dir,
	})
	fmt.Println(len(failures), err)
	// Output:
	// 0 <nil>
}
