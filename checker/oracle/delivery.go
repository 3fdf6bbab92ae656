package oracle

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

// span is the records from to to-1 of a partition.
type span struct{ from, to int64 }

// processedLog is what was processed of one partition: disjoint spans in
// offset order, none touching the next (touching spans are merged).
type processedLog []span

// add records the records [from, to) processed, and returns the first of
// them that had been processed before, or -1.
func (l *processedLog) add(from, to int64) int64 {
	s := *l
	// i: the first span that touches or follows from; k: the first span
	// past to. The spans i..k-1 touch or overlap [from, to).
	i, _ := slices.BinarySearchFunc(s, from, func(x span, v int64) int {
		if x.to < v {
			return -1
		}
		return 1
	})
	k := i
	again := int64(-1)
	for k < len(s) && s[k].from <= to {
		if again < 0 && s[k].from < to && s[k].to > from {
			again = max(from, s[k].from)
		}
		k++
	}
	merged := span{from, to}
	if k > i {
		merged = span{min(from, s[i].from), max(to, s[k-1].to)}
	}
	*l = slices.Replace(s, i, k, merged)
	return again
}

// firstGap returns the first record not processed.
func (l processedLog) firstGap() int64 {
	if len(l) == 0 || l[0].from > 0 {
		return 0
	}
	return l[0].to
}

// delivery judges the delivery laws (spec/delivery.go) from the processed
// and commit events, in trace order:
//
//   - ZombieCommitRejected, with spec.CheckCommit, on every commit, its
//     sender fenced when the coordinator had removed its member (and not
//     counted it again) by the time the commit was sent: only with the
//     coordinator in the trace;
//   - AtLeastOnce on every partition a commit moves, against the records
//     processed on the lines before it;
//   - ExactlyOnceWhenClean on every processed event while the run is
//     clean, when the header claims what the trace cannot see (no message
//     lost) and the coordinator; a run stops being clean at a crash, a
//     fenced or lost event, a member removed while it owned something, or
//     a parting commit refused: one a process sent after its leave event
//     (and before it joined again) that the coordinator did not accept
//     whole. A member that leaves between two generations commits under
//     the old one, which Kafka refuses without any fault, and the next
//     owner processes those records again (spec.ExactlyOnceWhenClean).
func (j *judge) delivery() []Verdict {
	c := j.c
	logs := map[spec.Resource]*processedLog{}
	counted := map[spec.MemberID]bool{}   // the coordinator's view
	removedAt := map[spec.MemberID]int{}  // member → the line of its last removal
	removedT := map[spec.MemberID]int64{} // and its time
	process := map[spec.MemberID]string{} // member → the process that last held it
	owns := map[string]spec.Set{}         // process → what it owns, by the callbacks
	leftAt := map[string]int{}            // process → the line of its leave event, until it joins again
	unclean := ""                         // why the run is not clean, from its first sign on
	var zombie, atLeast, twice []spec.Violation
	var zombieLines, atLeastLines, twiceLines []int
	ds := j.tr.Deliveries()
	next := 0
	events := j.tr.Events
	if len(ds) == 0 {
		events = nil // every delivery law is not judged: spare a long trace of callbacks the walk
	}
	for _, e := range events {
		if e.Process != "" && e.Member != "" {
			process[spec.MemberID(e.Member)] = e.Process
		}
		switch e.Kind {
		case trace.Join, trace.Restart:
			delete(leftAt, e.Process)
		case trace.Leave:
			leftAt[e.Process] = e.Line
		case trace.Joined:
			counted[spec.MemberID(e.Member)] = true
		case trace.Removed:
			m := spec.MemberID(e.Member)
			counted[m], removedAt[m], removedT[m] = false, e.Line, e.T
			p := cmp.Or(e.Process, process[m])
			if held := owns[p]; !held.IsEmpty() && unclean == "" {
				unclean = fmt.Sprintf("member %s (process %s) was removed at line %d while it owned %s", m, p, e.Line, held)
			}
		case trace.Assigned:
			set, _ := e.ResourceSet()
			owns[e.Process] = owns[e.Process].Union(set)
		case trace.Revoked, trace.Lost:
			set, _ := e.ResourceSet()
			owns[e.Process] = owns[e.Process].Minus(set)
			if e.Kind == trace.Lost && unclean == "" {
				unclean = fmt.Sprintf("process %s declared %s lost at line %d", e.Process, set, e.Line)
			}
		case trace.Crash:
			owns[e.Process] = nil
			if unclean == "" {
				unclean = fmt.Sprintf("process %s crashed at line %d", e.Process, e.Line)
			}
		case trace.Fenced:
			if unclean == "" {
				unclean = fmt.Sprintf("process %s was fenced at line %d", e.Process, e.Line)
			}
		case trace.Processed:
			d := ds[next]
			next++
			l := logs[d.Resource]
			if l == nil {
				l = &processedLog{}
				logs[d.Resource] = l
			}
			if again := l.add(d.From, d.To); again >= 0 && unclean == "" {
				twice = append(twice, spec.Violation{Law: spec.ExactlyOnceWhenClean, Resource: d.Resource, Members: []string{d.Process},
					Detail: fmt.Sprintf("record %d processed again in a clean run", again)})
				twiceLines = append(twiceLines, d.Line)
			}
		case trace.Commit:
			d := ds[next]
			next++
			m := spec.MemberID(d.Commit.Member)
			// Fenced: removed by the time the commit was sent, and not
			// counted again since (a commit whose sending overlaps its
			// removal may have been judged before it).
			d.Commit.Fenced = j.hdr.Coordinator && removedAt[m] > 0 && !counted[m] && j.tr.Nanos(removedT[m]) <= d.Call
			for _, v := range spec.CheckCommit(d.Commit) {
				v.Detail += fmt.Sprintf(" (removed at line %d)", removedAt[m])
				zombie = append(zombie, v)
				zombieLines = append(zombieLines, d.Line)
			}
			accepted := d.Commit.Accepted()
			if at := leftAt[d.Process]; at > 0 && len(accepted) < len(d.Commit.Partitions) && unclean == "" {
				unclean = fmt.Sprintf("process %s left at line %d and its parting commit was refused at line %d", d.Process, at, d.Line)
			}
			for _, r := range accepted {
				l := logs[r]
				if l == nil {
					l = &processedLog{}
				}
				if gap, off := l.firstGap(), d.Offsets[r]; gap < off {
					atLeast = append(atLeast, spec.Violation{Law: spec.AtLeastOnce, Resource: r, Members: []string{d.Process},
						Detail: fmt.Sprintf("committed offset %d passes record %d, which nobody processed", off, gap)})
					atLeastLines = append(atLeastLines, d.Line)
				}
			}
		}
	}
	verdict := func(law spec.Law, why string, vs []spec.Violation, lines []int, held string) Verdict {
		switch {
		case why != "":
			return Verdict{Law: law, Status: NotJudged, Detail: why}
		case len(vs) > 0:
			return Verdict{Law: law, Status: Broken, Line: lines[0], Count: len(vs), Detail: vs[0].String()}
		}
		return Verdict{Law: law, Status: Held, Detail: held}
	}
	var whyAtLeast, whyClean, whyZombie string
	switch {
	case c.Processed == 0 && c.Commits == 0:
		whyAtLeast = "no processed or commit events"
	case c.Commits == 0:
		whyAtLeast = "no commit events: no committed offset moves"
	case c.Processed == 0:
		whyAtLeast = "no processed events: what was processed is not known"
	}
	switch {
	case c.Processed == 0:
		whyClean = "no processed events"
	case !j.hdr.Clean:
		whyClean = `the header does not claim a clean run ("clean": true: no message lost, duplicated or held up), which a trace cannot show`
	case !j.hdr.Coordinator:
		whyClean = "the header does not claim the coordinator, so a member fenced while it owned something cannot be ruled out"
	case unclean != "" && len(twice) == 0:
		whyClean = "not a clean run: " + unclean
	}
	switch {
	case c.Commits == 0:
		whyZombie = "no commit events"
	case !j.hdr.Coordinator:
		whyZombie = "the header does not claim the coordinator, so who was fenced is not known"
	}
	cleanHeld := "a clean run (claimed by the header; no crash, fenced or lost event, no member removed while it owned something, no parting commit refused): no record processed twice"
	return []Verdict{
		verdict(spec.AtLeastOnce, whyAtLeast, atLeast, atLeastLines, fmt.Sprintf("every accepted commit (%s): the committed offset never passed a record nobody processed", plural(c.Commits, "commit"))),
		verdict(spec.ExactlyOnceWhenClean, whyClean, twice, twiceLines, cleanHeld),
		verdict(spec.ZombieCommitRejected, whyZombie, zombie, zombieLines, fmt.Sprintf("every commit (%s): none accepted from a member the coordinator had removed", plural(c.Commits, "commit"))),
	}
}
