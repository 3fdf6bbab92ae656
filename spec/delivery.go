package spec

import (
	"fmt"
	"slices"
	"strings"
)

// The delivery laws: what a rebalance may do to the records of a
// partition (KIP-848's promise: "at-least-once delivery is guaranteed at
// worst, and exactly-once delivery is achievable in a clean rebalance").
// A partition is a log of records; its owner processes them in order
// from the partition's committed offset and commits how far it got, and
// the coordinator fences the commits of members that are no longer in the
// group (by generation in the classic protocol, by member epoch in the
// next-gen one). The laws read a Delivery view and the commits the
// coordinator judged.
const (
	// AtLeastOnce: no record is skipped: the committed offset of a
	// partition never passes a record that no member processed. It holds
	// in every run, crashes, lost messages and zombies included: a member
	// commits only what it processed, a new owner starts from the
	// committed offset, and a zombie's commit is rejected.
	AtLeastOnce Law = "AtLeastOnce"
	// ExactlyOnceWhenClean: in a clean run (no member crashed, no message
	// was lost or duplicated, no member was fenced, no member's parting
	// commit was refused), no record is processed twice: every owner
	// commits what it processed before it releases the partition, and
	// the next owner starts from there.
	ExactlyOnceWhenClean Law = "ExactlyOnceWhenClean"
	// ZombieCommitRejected: the coordinator never accepts a commit from a
	// fenced member (one the group removed while its process lives on).
	// The tolerance of ExclusiveOwnership for fenced members rests on it
	// in the protocols that fence commits: a zombie may still work on a
	// partition, but nothing it does is committed.
	ZombieCommitRejected Law = "ZombieCommitRejected"
)

// Progress is one partition as the delivery laws see it.
type Progress struct {
	Resource Resource
	// Committed is the committed offset: the first record a new owner
	// processes; 0 before any commit. Invariant: 0 <= Committed <=
	// len(Processed).
	Committed int
	// Processed counts, for each record (by offset), how many times a
	// member processed it; its length is the length of the log.
	Processed []int
}

// String prints "resource committed=N processed=[a b ...]".
func (p Progress) String() string {
	return fmt.Sprintf("%s committed=%d processed=%v", p.Resource, p.Committed, p.Processed)
}

// Delivery is the delivery view of a state: the progress of every
// partition, and whether the run so far is clean (see
// ExactlyOnceWhenClean).
//
// Invariant: Partitions is sorted by Resource, each resource once.
type Delivery struct {
	Partitions []Progress
	Clean      bool
}

// String prints one line per partition in resource order, then "clean"
// or "not clean".
func (d Delivery) String() string {
	var b strings.Builder
	for _, p := range d.Partitions {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	if d.Clean {
		b.WriteString("clean\n")
	} else {
		b.WriteString("not clean\n")
	}
	return b.String()
}

// CheckDelivery returns every violation of AtLeastOnce, and of
// ExactlyOnceWhenClean when d is clean, in resource order. A committed
// offset outside its log breaks AtLeastOnce too (it passes records that
// do not exist).
func CheckDelivery(d Delivery) []Violation {
	var out []Violation
	for _, p := range d.Partitions {
		if p.Committed < 0 || p.Committed > len(p.Processed) {
			out = append(out, Violation{Law: AtLeastOnce, Resource: p.Resource,
				Detail: fmt.Sprintf("committed offset %d outside the log of %d records", p.Committed, len(p.Processed))})
			continue
		}
		if i := slices.Index(p.Processed[:p.Committed], 0); i >= 0 {
			out = append(out, Violation{Law: AtLeastOnce, Resource: p.Resource,
				Detail: fmt.Sprintf("committed offset %d passes record %d, which nobody processed", p.Committed, i)})
		}
		if !d.Clean {
			continue
		}
		if i := slices.IndexFunc(p.Processed, func(n int) bool { return n > 1 }); i >= 0 {
			out = append(out, Violation{Law: ExactlyOnceWhenClean, Resource: p.Resource,
				Detail: fmt.Sprintf("record %d processed %d times in a clean run", i, p.Processed[i])})
		}
	}
	return out
}

// Commit is an offset commit the coordinator judged: the member process
// that sent it, whether that member was fenced when the coordinator
// judged it (a zombie: see MemberView.Fenced), the partitions it
// committed, and the coordinator's answer: Error for the whole request
// (None: judged partition by partition), and Refused, the partitions
// refused one by one (next-gen under KIP-1251: STALE_MEMBER_EPOCH for a
// partition the member was not assigned at the epoch it sent). The
// committed offsets move for Accepted only.
//
// Invariant: Refused is a subset of Partitions, and empty when Error is
// not None.
type Commit struct {
	Member     string
	Fenced     bool
	Partitions Set
	Error      ErrorCode
	Refused    Set
}

// Accepted returns the partitions whose offsets the commit stored: none
// when the whole request was refused, else Partitions minus Refused.
func (c Commit) Accepted() Set {
	if c.Error != None {
		return nil
	}
	return c.Partitions.Minus(c.Refused)
}

// String prints "member committed partitions: ERROR", with "(fenced)"
// after a fenced member's name and ", refused partitions" when some
// partitions were refused one by one.
func (c Commit) String() string {
	who := c.Member
	if c.Fenced {
		who += " (fenced)"
	}
	s := fmt.Sprintf("%s committed %s: %s", who, c.Partitions, c.Error)
	if !c.Refused.IsEmpty() {
		s += ", refused " + c.Refused.String()
	}
	return s
}

// CheckCommit reports ZombieCommitRejected when the coordinator accepted
// any partition of a fenced member's commit.
func CheckCommit(c Commit) []Violation {
	if !c.Fenced {
		return nil
	}
	accepted := c.Accepted()
	if accepted.IsEmpty() {
		return nil
	}
	return []Violation{{Law: ZombieCommitRejected, Members: []string{c.Member},
		Detail: fmt.Sprintf("the coordinator accepted the commit of %s from a fenced member", accepted)}}
}
