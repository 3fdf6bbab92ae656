package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Delivery: the records of each partition and what the applications do
// with them (spec's delivery laws). It is off while World.Records is 0,
// and then costs nothing and changes no encoding.
//
// The abstraction:
//   - Every partition (or each one named to SetRecords) is a log of
//     Records records, all there from the start: a producer appending
//     more adds nothing the laws could see that a longer log does not.
//   - An application processes the records of a partition its member
//     owns one at a time, in order, from its position: the committed
//     offset when it first processes the partition after gaining it (an
//     OffsetFetch, unfenced: reading can neither skip nor repeat a
//     record).
//   - It commits its position when it gives the partition up in a
//     rebalance (classic: in the revocation callback, before the member
//     goes on; next-gen: when it finishes revoking, before the member
//     acknowledges), as an OffsetCommit the family's coordinator fences
//     by its own rules. The request and its answer are one step, so the
//     coordinator's state at that moment decides; a lost commit (from an
//     isolated process) is modelled as a rejected one. Only an accepted
//     commit moves the committed offset.
//   - A member told its partitions are lost forgets its positions without
//     committing; a crash forgets them too.
//   - How often each record was processed is the observer's, capped at
//     2: the laws ask only "at least once" and "more than once".

// maxProcessed caps the per-record processing count kept (see above).
const maxProcessed = 2

// SetRecords gives the partitions a log of n records, turning delivery
// on: the partitions on, or every partition when on is empty. It must come
// before any record is processed. Logs on a few partitions cost the model
// checker far fewer states, and the delivery laws are per partition.
func (w *World[M, T, C, P]) SetRecords(n int, on spec.Set) error {
	switch {
	case n < 0:
		return fmt.Errorf("records: negative count %d", n)
	case len(w.processed) > 0:
		return fmt.Errorf("records: records were processed already")
	case n == 0 && len(on) > 0:
		return fmt.Errorf("records: partitions named for no records")
	}
	for _, r := range on {
		if _, ok := w.Topics[r.Topic]; !ok {
			return fmt.Errorf("records: no topic %s (for %s)", r.Topic, r)
		}
	}
	w.Records, w.recordsOn = n, on
	return nil
}

// hasLog reports whether partition r has records.
func (w *World[M, T, C, P]) hasLog(r spec.Resource) bool {
	return w.Records > 0 && (len(w.recordsOn) == 0 || w.recordsOn.Contains(r))
}

// position is the application's next record of partition r: its own if it
// works on r, else the committed offset.
func (w *World[M, T, C, P]) position(p *Process[M, T, C, P], r spec.Resource) int {
	if pos, ok := p.positions.get(r); ok {
		return pos
	}
	pos, _ := w.committed.get(r)
	return pos
}

// consumable returns the partitions the application of process name may
// process a record of now (cannotConsume says "" for each).
// The caller asks only in a world with records, for one of its processes.
func (w *World[M, T, C, P]) consumable(name string) spec.Set {
	p := w.Process(name)
	if p.Node == nil {
		return nil
	}
	if p.Node.Phase().Done() {
		return nil
	}
	// cannotConsume for each partition the member owns, the member's
	// view built once.
	var out spec.Set
	for _, r := range p.Node.View().Owns {
		if w.hasLog(r) && w.Topics.Has(r) && !p.Revoking.Contains(r) && w.position(p, r) < w.Records {
			out = append(out, r)
		}
	}
	return out
}

// cannotConsume says why the application of live process p may not
// process a record of r now, "" when it may: its member must own r and
// not be revoking it or done, and r must have a record left for it.
func (w *World[M, T, C, P]) cannotConsume(p *Process[M, T, C, P], r spec.Resource) string {
	switch {
	case !w.hasLog(r) || !w.Topics.Has(r):
		return "it has no records"
	case p.Node.Phase().Done():
		return "the member is done"
	case !p.Node.View().Owns.Contains(r):
		return "it does not own it"
	case p.Revoking.Contains(r):
		return "it is revoking it"
	case w.position(p, r) >= w.Records:
		return fmt.Sprintf("all %d records are processed", w.Records)
	}
	return ""
}

// Consume has the application of process name process the next record of
// partition r.
func (w *World[M, T, C, P]) Consume(name string, r spec.Resource) error {
	if w.Records == 0 {
		return fmt.Errorf("no records: start with records N")
	}
	if _, err := w.process(name); err != nil {
		return err
	}
	if w.Process(name).Node == nil {
		return fmt.Errorf("member %s is down", name)
	}
	if why := w.cannotConsume(w.Process(name), r); why != "" {
		return fmt.Errorf("member %s cannot process a record of %s: %s", name, r, why)
	}
	p := w.ownApplication(name) // processing does not step the member
	pos := w.position(p, r)
	p.positions = p.positions.with(r, pos+1)
	counts, _ := w.processed.get(r)
	counts = slices.Clone(counts)
	if counts == nil {
		counts = make([]int, w.Records)
	}
	counts[pos] = min(counts[pos]+1, maxProcessed)
	w.processed = w.processed.with(r, counts)
	if !w.unlogged {
		w.logf("%s processed %s@%d", name, r, pos)
	}
	w.checkDelivery()
	return nil
}

// commit has the application of process name commit its positions of rs
// (those it works on) through the coordinator, and then forget them: it
// gives them up. The coordinator's answer decides whether the committed
// offsets move. With the OwnPosition fault it keeps the positions; with
// CommitAfterRelease it only sets them aside for a later commit step
// (CommitReleased).
func (w *World[M, T, C, P]) commit(name string, rs spec.Set) {
	p := w.Process(name)
	if w.Records == 0 || p == nil || p.Node == nil {
		return
	}
	offsets := p.positions.only(rs)
	if len(offsets) == 0 {
		return
	}
	p = w.own(name)
	if !w.DeliveryFaults.Has(OwnPosition) {
		p.positions = p.positions.without(rs)
	}
	if w.DeliveryFaults.Has(CommitAfterRelease) {
		p.unsent = p.unsent.merged(offsets)
		if !w.unlogged {
			w.logf("%s gives up %s without committing", name, offsets.resources())
		}
		return
	}
	if w.sendCommit(name, offsets) && p.Node.Phase() == Left {
		// A parting commit (the member releases what it worked on as it
		// leaves) that the coordinator refuses: the next owner starts from
		// the older offset and processes those records again. That needs
		// no fault: a member that leaves between two generations commits
		// under the old one, which Kafka refuses (and its consumer fails
		// such a commit itself, ConsumerCoordinator.sendOffsetCommitRequest).
		// So the run is no longer clean, as when a commit is lost on the
		// way. A refused commit of a member that stays, or a late one
		// (CommitReleased), leaves it clean: the law is there for those.
		w.unclean = true
	}
}

// CommitReleased has the application of process name commit the offsets
// of the partitions it gave up without committing (the CommitAfterRelease
// fault): the commit goes at the member's generation or epoch of now.
func (w *World[M, T, C, P]) CommitReleased(name string) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	p := w.Process(name)
	if len(p.unsent) == 0 {
		return fmt.Errorf("member %s has nothing to commit", name)
	}
	offsets := p.unsent
	w.own(name).unsent = nil
	w.sendCommit(name, offsets)
	return nil
}

// committing returns the live processes with offsets set aside to commit
// (CommitReleased), sorted.
func (w *World[M, T, C, P]) committing() []string {
	var out []string
	for _, name := range w.Names() {
		if p := w.Process(name); p.Node != nil && len(p.unsent) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// sendCommit sends the OffsetCommit of offsets from process name to the
// coordinator, request and answer in one step, and moves the committed
// offsets the answer accepts. It reports whether the coordinator refused
// some of them (not when no commit could be sent).
func (w *World[M, T, C, P]) sendCommit(name string, offsets byResource[int]) (refused bool) {
	p := w.Process(name)
	parts := offsets.resources()
	req, ok := w.Family.CommitRequest(*p.config, p.Node, parts)
	if !ok {
		return
	}
	if p.Isolated {
		// Cut off from the coordinator: the commit is lost, as a rejected
		// one is, and the run is no longer clean.
		w.unclean = true
		if !w.unlogged {
			w.logf("%s's commit of %s is lost (isolated)", name, parts)
		}
		return
	}
	fenced := w.memberView(name, p, nil).Fenced
	w.ownCoordinator()
	out := w.stepOutput()
	w.Coordinator.StepInto(node.Input{Now: w.Now, Event: node.Receive[M]{From: p.Address(name), Msg: req}}, out)
	c := spec.Commit{Member: name, Fenced: fenced, Partitions: parts, Error: spec.UnknownServerError}
	kept := out.Messages[:0] // the output is the world's own (stepOutput): filtered in place
	for _, m := range out.Messages {
		if code, refused, ok := w.Family.CommitError(m.Msg); ok && m.To == p.Address(name) {
			c.Error, c.Refused = code, refused // the application takes the answer at once
			continue
		}
		kept = append(kept, m)
	}
	clear(out.Messages[len(kept):])
	out.Messages = kept
	if !w.unlogged {
		w.logf("%s", c)
	}
	for _, v := range spec.CheckCommit(c) {
		w.violate(v)
	}
	accepted := c.Accepted()
	if !accepted.IsEmpty() {
		w.committed = w.committed.merged(offsets.only(accepted))
		w.checkDelivery()
	}
	w.apply(node.CoordinatorNode, *out)
	w.release(out)
	return len(accepted) < len(parts)
}

// deliveryCallback is what the application of process name does with its
// positions on callback cb: forget them all when its partitions are lost;
// commit those of the resources it is told to revoke, where the
// revocation completes within the callback (a classic member's; a
// next-gen member's application commits when it finishes revoking,
// CompleteRevocation, which is how Family.RevokeCallback tells them apart).
func (w *World[M, T, C, P]) deliveryCallback(name string, cb C) {
	if w.Family.LostCallback(cb) {
		w.forgetPositions(name)
		return
	}
	if later, _ := w.Family.RevokeCallback(cb); later.IsEmpty() {
		w.commit(name, w.Family.Revoked(cb))
	}
}

// forgetPositions drops every position of process name without
// committing (its partitions were lost).
func (w *World[M, T, C, P]) forgetPositions(name string) {
	if p := w.Process(name); p != nil && len(p.positions) > 0 {
		w.own(name).positions = nil
	}
}

// Delivery returns the delivery view: every partition of the world's
// topics that has records, with its committed offset and processing counts, and whether
// the run is clean so far (no crash, no lost or duplicated message, no
// live member fenced while it owned something). Empty while Records is 0.
func (w *World[M, T, C, P]) Delivery() spec.Delivery { return w.delivery(true) }

// delivery is Delivery, sharing the processing counts with w unless
// clone is set (for checkDelivery, which only reads them). With records
// on named partitions it walks those (a sorted set, as the topics'
// resources are) instead of every partition.
func (w *World[M, T, C, P]) delivery(clone bool) spec.Delivery {
	d := spec.Delivery{Clean: !w.unclean}
	if w.Records == 0 {
		return d
	}
	var zeros []int // shared by the partitions nobody processed, without clone
	add := func(r spec.Resource) {
		counts, _ := w.processed.get(r)
		committed, _ := w.committed.get(r)
		switch {
		case counts == nil && clone:
			counts = make([]int, w.Records)
		case counts == nil:
			if zeros == nil {
				zeros = make([]int, w.Records)
			}
			counts = zeros
		case clone:
			counts = slices.Clone(counts)
		}
		d.Partitions = append(d.Partitions, spec.Progress{Resource: r, Committed: committed, Processed: counts})
	}
	if len(w.recordsOn) > 0 {
		for _, r := range w.recordsOn {
			if w.Topics.Has(r) {
				add(r)
			}
		}
		return d
	}
	for _, r := range w.Topics.Resources(w.Topics.Names()...) {
		add(r)
	}
	return d
}

// checkDelivery judges the delivery laws on the state now.
func (w *World[M, T, C, P]) checkDelivery() {
	if w.Records == 0 {
		return
	}
	for _, v := range spec.CheckDelivery(w.delivery(false)) {
		w.violate(v)
	}
}

// noteFences marks the run unclean once a live member is fenced while it
// owns something (the view after an action, v): the group took its
// partitions without its commits. (A member on its way into the group is
// not counted yet, so the view marks it fenced too; it owns nothing.)
func (w *World[M, T, C, P]) noteFences(v spec.View) {
	if w.Records == 0 || w.unclean {
		return
	}
	for _, mv := range v.Members {
		if mv.Fenced && !mv.Owns.IsEmpty() {
			w.unclean = true
			return
		}
	}
}

// encodeDelivery writes the committed offsets, the processing counts and
// whether the run is clean, in resource order; nothing while Records is 0.
func (w *World[M, T, C, P]) encodeDelivery(e *canon.Encoder) {
	if w.Records == 0 {
		return
	}
	e.Bool(w.unclean)
	encodeOffsets(e, w.committed)
	encodeByResource(e, w.processed, encodeCounts)
}

// encodeOffsets writes offsets by resource in resource order.
func encodeOffsets(e *canon.Encoder, offsets byResource[int]) {
	encodeByResource(e, offsets, encodeOffset)
}

// encodeOffset writes one offset.
func encodeOffset(e *canon.Encoder, n int) { e.Int(int64(n)) }

// encodeCounts writes one partition's processing counts.
func encodeCounts(e *canon.Encoder, counts []int) {
	for _, n := range counts {
		e.Int(int64(n))
	}
}

// encodeByResource writes m's length, then each entry in resource order:
// its partition, then value's encoding of its value. value is a plain
// function, not a closure over e: a closure escapes through the generic
// call and cost one allocation each time a process or the delivery state
// was encoded (a fifth of all allocations in the next-gen world with
// records).
func encodeByResource[V any](e *canon.Encoder, m byResource[V], value func(*canon.Encoder, V)) {
	e.Len(len(m))
	for _, x := range m {
		e.String(x.R.Topic)
		e.Int(int64(x.R.Partition))
		value(e, x.V)
	}
}

// deliveryString prints the delivery state for "ownership" and scenario
// files: one line per partition touched, then whether the run is clean.
func (w *World[M, T, C, P]) deliveryString() string {
	if w.Records == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Delivery().Partitions {
		if p.Committed == 0 && !slices.ContainsFunc(p.Processed, func(n int) bool { return n > 0 }) {
			continue
		}
		fmt.Fprintf(&b, "records %s\n", p)
	}
	if w.unclean {
		b.WriteString("records: not clean\n")
	}
	return b.String()
}
