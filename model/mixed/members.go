package mixed

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// member is the world's view of a member node of either protocol.
type member = core.Member[nextgen.Message, Timer, Callback]

// classicMember is a classic member (model/classic) in the mixed world: it
// speaks the classic protocol to whichever group the coordinator holds.
type classicMember struct{ *classic.Member }

// Step translates in for the classic member, steps it and translates its
// output. An input of the consumer protocol (which no coordinator sends a
// classic member) and a next-gen application's RevocationDone (a classic
// member revokes within its callback) change nothing.
func (m classicMember) Step(in node.Input) Output {
	if _, ok := in.Event.(nextgen.RevocationDone); ok {
		return Output{}
	}
	cin, ok := toClassic(in)
	if !ok {
		return Output{}
	}
	return fromClassic(m.Member.Step(cin))
}

// StepInto is Step with the output written into *out (core.Member); the
// translated lists replace out's. It hides classic.Member's StepInto,
// which writes the classic output.
func (m classicMember) StepInto(in node.Input, out *Output) { *out = m.Step(in) }

// CloneMember copies the member, into into's memory when into is a
// classic member too (core.Member).
func (m classicMember) CloneMember(into member) member {
	dst, _ := into.(classicMember)
	return classicMember{m.CloneInto(dst.Member)}
}

// Encode writes the protocol, then the member as the classic family
// encodes it (classicworld.EncodeMember).
func (m classicMember) Encode(e *canon.Encoder) {
	e.Uint(uint64(ClassicProtocol))
	classicworld.EncodeMember(e, m.Member)
}

// consumerMember is a next-gen member (model/nextgen) in the mixed world.
type consumerMember struct{ *nextgen.Member }

// Step translates in for the next-gen member, steps it and translates its
// output. A classic timer (which no next-gen member arms) and a classic
// member's events change nothing.
func (m consumerMember) Step(in node.Input) Output {
	if _, ok := in.Event.(classic.RequestRejoin); ok {
		return Output{}
	}
	nin, ok := toConsumer(in)
	if !ok {
		return Output{}
	}
	return fromConsumer(m.Member.Step(nin))
}

// StepInto is Step with the output written into *out (core.Member), as
// classicMember's is.
func (m consumerMember) StepInto(in node.Input, out *Output) { *out = m.Step(in) }

// CloneMember copies the member, into into's memory when into is a
// next-gen member too (core.Member).
func (m consumerMember) CloneMember(into member) member {
	dst, _ := into.(consumerMember)
	return consumerMember{m.CloneInto(dst.Member)}
}

// Generation is the member epoch.
func (m consumerMember) Generation() spec.Generation { return spec.Generation(m.Epoch()) }

// Encode writes the protocol, then the member.
func (m consumerMember) Encode(e *canon.Encoder) {
	e.Uint(uint64(ConsumerProtocol))
	m.Member.EncodeCanon(e)
}
