package spec

import (
	"fmt"
	"testing"
)

// TestCheckDelivery: each law on small hand-made views, one case for each
// way it can be broken or held.
func TestCheckDelivery(t *testing.T) {
	t0 := Resource{Topic: "T", Partition: 0}
	t1 := Resource{Topic: "T", Partition: 1}
	for _, c := range []struct {
		name string
		d    Delivery
		want []string
	}{
		{"nothing processed, nothing committed", Delivery{Clean: true, Partitions: []Progress{{Resource: t0, Processed: []int{0, 0}}}}, nil},
		{"committed what was processed", Delivery{Clean: true, Partitions: []Progress{{Resource: t0, Committed: 2, Processed: []int{1, 1}}}}, nil},
		{"processed past the committed offset", Delivery{Clean: true, Partitions: []Progress{{Resource: t0, Committed: 1, Processed: []int{1, 1}}}}, nil},
		{"committed past an unprocessed record", Delivery{Partitions: []Progress{{Resource: t0, Committed: 2, Processed: []int{1, 0}}}},
			[]string{"AtLeastOnce: T-0: committed offset 2 passes record 1, which nobody processed"}},
		{"committed past the log", Delivery{Partitions: []Progress{{Resource: t0, Committed: 3, Processed: []int{1, 1}}}},
			[]string{"AtLeastOnce: T-0: committed offset 3 outside the log of 2 records"}},
		{"negative committed offset", Delivery{Partitions: []Progress{{Resource: t0, Committed: -1, Processed: []int{1}}}},
			[]string{"AtLeastOnce: T-0: committed offset -1 outside the log of 1 records"}},
		{"a record processed twice in a clean run", Delivery{Clean: true, Partitions: []Progress{{Resource: t0, Committed: 1, Processed: []int{2, 0}}}},
			[]string{"ExactlyOnceWhenClean: T-0: record 0 processed 2 times in a clean run"}},
		{"a record processed twice after a crash", Delivery{Partitions: []Progress{{Resource: t0, Committed: 1, Processed: []int{2, 0}}}}, nil},
		{"both laws, two partitions, in resource order", Delivery{Clean: true, Partitions: []Progress{
			{Resource: t0, Committed: 1, Processed: []int{0, 3}},
			{Resource: t1, Committed: 0, Processed: []int{1, 2}},
		}}, []string{
			"AtLeastOnce: T-0: committed offset 1 passes record 0, which nobody processed",
			"ExactlyOnceWhenClean: T-0: record 1 processed 3 times in a clean run",
			"ExactlyOnceWhenClean: T-1: record 1 processed 2 times in a clean run",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fmt.Sprint(CheckDelivery(c.d))
			if want := fmt.Sprint(violationsOf(c.want)); got != want {
				t.Errorf("CheckDelivery(\n%s) = %s, want %s", c.d, got, want)
			}
		})
	}
}

// violationsOf prints like a []Violation of the given lines.
func violationsOf(lines []string) []string {
	if lines == nil {
		return []string{}
	}
	return lines
}

// TestCheckCommit: only an accepted commit from a fenced member breaks
// ZombieCommitRejected.
func TestCheckCommit(t *testing.T) {
	parts := NewSet(Resource{Topic: "T", Partition: 0})
	two := NewSet(Resource{Topic: "T", Partition: 0}, Resource{Topic: "T", Partition: 1})
	for _, c := range []struct {
		c    Commit
		want string
	}{
		{Commit{Member: "A", Partitions: parts, Error: None}, "[]"},
		{Commit{Member: "A", Fenced: true, Partitions: parts, Error: StaleMemberEpoch}, "[]"},
		{Commit{Member: "A", Fenced: true, Partitions: parts, Error: IllegalGeneration}, "[]"},
		{Commit{Member: "A", Fenced: true, Partitions: parts, Error: None}, "[ZombieCommitRejected: [A]: the coordinator accepted the commit of " + parts.String() + " from a fenced member]"},
		// Refused partition by partition (KIP-1251): all refused is a
		// rejection, one stored is not.
		{Commit{Member: "A", Fenced: true, Partitions: two, Error: None, Refused: two}, "[]"},
		{Commit{Member: "A", Fenced: true, Partitions: two, Error: None, Refused: parts}, "[ZombieCommitRejected: [A]: the coordinator accepted the commit of {T-1} from a fenced member]"},
		{Commit{Member: "A", Partitions: two, Error: None, Refused: parts}, "[]"},
	} {
		if got := fmt.Sprint(CheckCommit(c.c)); got != c.want {
			t.Errorf("CheckCommit(%s) = %s, want %s", c.c, got, c.want)
		}
	}
}

// TestDeliveryPrinters: the printers are deterministic and say what the
// laws read.
func TestDeliveryPrinters(t *testing.T) {
	d := Delivery{Partitions: []Progress{{Resource: Resource{Topic: "T", Partition: 0}, Committed: 1, Processed: []int{1, 0}}}}
	if got, want := d.String(), "T-0 committed=1 processed=[1 0]\nnot clean\n"; got != want {
		t.Errorf("Delivery.String() = %q, want %q", got, want)
	}
	d.Clean = true
	if got, want := d.String(), "T-0 committed=1 processed=[1 0]\nclean\n"; got != want {
		t.Errorf("Delivery.String() = %q, want %q", got, want)
	}
	c := Commit{Member: "B", Fenced: true, Partitions: NewSet(Resource{Topic: "T", Partition: 0}), Error: StaleMemberEpoch}
	if got, want := c.String(), "B (fenced) committed "+c.Partitions.String()+": STALE_MEMBER_EPOCH"; got != want {
		t.Errorf("Commit.String() = %q, want %q", got, want)
	}
	c = Commit{Member: "B", Partitions: NewSet(Resource{Topic: "T", Partition: 0}, Resource{Topic: "T", Partition: 1}), Refused: NewSet(Resource{Topic: "T", Partition: 1})}
	if got, want := c.String(), "B committed "+c.Partitions.String()+": NONE, refused "+c.Refused.String(); got != want {
		t.Errorf("Commit.String() = %q, want %q", got, want)
	}
}

// TestCommitAccepted: a refused request stores nothing, an accepted one
// all but its refused partitions.
func TestCommitAccepted(t *testing.T) {
	t0, t1 := Resource{Topic: "T", Partition: 0}, Resource{Topic: "T", Partition: 1}
	for _, c := range []struct {
		c    Commit
		want Set
	}{
		{Commit{Partitions: NewSet(t0, t1)}, NewSet(t0, t1)},
		{Commit{Partitions: NewSet(t0, t1), Refused: NewSet(t0)}, NewSet(t1)},
		{Commit{Partitions: NewSet(t0, t1), Error: StaleMemberEpoch}, nil},
	} {
		if got := c.c.Accepted(); !got.Equal(c.want) {
			t.Errorf("%s: Accepted() = %s, want %s", c.c, got, c.want)
		}
	}
}
