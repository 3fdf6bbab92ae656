package classic

import (
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the member's memory of the sets it printed and read in
// metadata. Printing a set (spec.Set.BuildString) and reading one
// (spec.ParseSet) are pure functions, and from one round to the next most
// of them get the same argument: a member's owned set and the text of its
// assignment rarely change, yet every member prints what it owns at every
// join and reads its assignment at every sync, and a leader reads every
// member's owned set and prints every member's assignment. In a large
// group that printing and reading was a third of a round's work. The memos
// give back the result of the same call made before instead of computing
// it again: they change no output, only how often the text is built.
//
// The memos hold sets and strings that nobody modifies (sets are values:
// every operation returns a new one), and a memo is only ever replaced
// whole, never updated in place, so a copy of a member (Member.Clone)
// shares them safely. The canonical encoding leaves them out: they are no
// part of the member's behaviour.

// printedSet is a set and its text as spec.Set.BuildString prints it.
type printedSet struct {
	set  spec.Set
	text string
	ok   bool
}

// known returns the length of s's text when p printed s, 0 when it did not:
// what an encoder grows its buffer by for the set.
func (p *printedSet) known(s spec.Set) int {
	if p.ok && p.set.Equal(s) {
		return len(p.text)
	}
	return 0
}

// print writes s into b as spec.Set.BuildString does, taking the text from
// p when p printed the same set, and makes p the memo of this call.
//
// On a hit p keeps its text but takes s for its set: the two are equal, and
// s is what the caller holds now. Keeping the old set instead would keep
// alive whatever it shares an array with: an assignor that carves every
// member's set out of one array per round (the sticky assignor's collect)
// would have each member's memo hold on to the array of the round its set
// last changed in, up to one round's array per member.
func (p *printedSet) print(b *strings.Builder, s spec.Set) {
	if p.ok && p.set.Equal(s) {
		b.WriteString(p.text)
		p.set = s
		return
	}
	start := b.Len()
	s.BuildString(b)
	// The builder never changes what it wrote, so the text may share its
	// buffer.
	*p = printedSet{set: s, text: b.String()[start:], ok: true}
}

// parsedSet is a text and the set spec.ParseSet read from it.
type parsedSet struct {
	text string
	set  spec.Set
	ok   bool
}

// parse reads text as spec.ParseSet does, taking the set from p when p
// read the same text, and makes p the memo of this call when it succeeds.
func (p *parsedSet) parse(text string) (spec.Set, error) {
	if p.ok && p.text == text {
		return p.set, nil
	}
	s, err := spec.ParseSet(text)
	if err != nil {
		return nil, err
	}
	*p = parsedSet{text: text, set: s, ok: true}
	return s, nil
}

// parsedTopics is a subscription's topics field and the topics parseTopics
// read from it.
type parsedTopics struct {
	text   string
	topics []string
	ok     bool
}

// parse reads text as parseTopics does, taking the topics from p when p
// read the same text, and makes p the memo of this call when it succeeds.
func (p *parsedTopics) parse(text string) ([]string, error) {
	if p.ok && p.text == text {
		return p.topics, nil
	}
	ts, err := parseTopics(text)
	if err != nil {
		return nil, err
	}
	*p = parsedTopics{text: text, topics: ts, ok: true}
	return ts, nil
}

// subscriptionMemo is what a leader remembers of a member's subscription:
// its topics and its owned set as read.
type subscriptionMemo struct {
	topics parsedTopics
	owned  parsedSet
}

// codecMemo is what a member remembers of the metadata it printed and read:
// as a member, its owned set as printed in its last JoinGroup and the
// assigned set read from its last SyncGroup response; as the leader, the
// topics and owned sets read from the members' subscriptions and the assigned sets
// printed into their assignments in the last round it led, by member id.
type codecMemo struct {
	owned    printedSet
	assigned parsedSet
	claims   map[spec.MemberID]subscriptionMemo
	assigns  map[spec.MemberID]printedSet
}

// codec returns a copy of the member's memo, for the caller to update and
// install as a new one.
func (m *Member) codec() codecMemo {
	if m.memo == nil {
		return codecMemo{}
	}
	return *m.memo
}
