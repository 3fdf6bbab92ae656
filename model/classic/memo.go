package classic

import (
	"slices"
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
// it again, and a reading of a text the node itself printed gives back the
// set it printed (parsedSet.parse): they change no output, only how often
// the text is built and read.
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

// readsBack reports whether spec.ParseSet reads s's text back as s: s is
// a set (spec.Set.Validate: sorted, without duplicates, every resource
// valid) and no topic name of it holds a space or a comma, the bytes that
// separate a set's resources; each resource then prints as
// spec.ParseResource reads it. Every set a member read from metadata
// does; a leader's assignor may build one over topics named otherwise.
// Each topic name is looked at once, at the start of its run.
func readsBack(s spec.Set) bool {
	if s.Validate() != nil {
		return false
	}
	for i := 0; i < len(s); i = s.RunEnd(i) {
		if strings.ContainsAny(s[i].Topic, " ,") {
			return false
		}
	}
	return true
}

// parsedSet is a text and the set spec.ParseSet read from it.
type parsedSet struct {
	text string
	set  spec.Set
	ok   bool
}

// parse reads text as spec.ParseSet does, taking the set from p when p
// read the same text, or from printed when the node printed that very
// text (and it reads back as its set), and makes p the memo of this call
// when it succeeds. printed may be nil. The text the node printed is the
// common case the other memo misses: a member reads back as its
// assignment the owned set it just claimed, and a leader reads as a
// member's claim the assignment it printed for it the round before.
func (p *parsedSet) parse(text string, printed *printedSet) (spec.Set, error) {
	if p.ok && p.text == text {
		return p.set, nil
	}
	if printed != nil && printed.ok && printed.text == text && readsBack(printed.set) {
		// A copy, as spec.ParseSet would return (nil for "{}"): the
		// printed set may be carved out of an array the assignor made for
		// the whole round (the sticky assignor's collect), which the memo
		// would otherwise keep alive as long as it keeps the set, a
		// round's array for each member at a thousand members (9.9 GB of
		// peak RSS at full size, against 0.4 GB). Copying is still a
		// fraction of reading the text.
		s := slices.Clone(printed.set)
		if len(s) == 0 {
			s = nil
		}
		*p = parsedSet{text: text, set: s, ok: true}
		return s, nil
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

// memberMemo is a leader's memo of one member.
type memberMemo[V any] struct {
	id spec.MemberID
	v  V
}

// memoCursor reads a leader's memo list (sorted by id) alongside a round's
// members, which come in id order too: each lookup moves forward from the
// last, so a round's lookups take one pass over the list, not a search
// each.
type memoCursor[V any] []memberMemo[V]

// of returns the memo of member id, the zero value when there is none.
// The ids asked of one cursor must increase.
func (c *memoCursor[V]) of(id spec.MemberID) V {
	ms := *c
	for len(ms) > 0 && ms[0].id < id {
		ms = ms[1:]
	}
	*c = ms
	if len(ms) > 0 && ms[0].id == id {
		return ms[0].v
	}
	var zero V
	return zero
}

// renewed returns old when fresh holds the same memos of the same members
// (same tells), and otherwise a copy of fresh: a leader's round that reads
// and prints what the last one did leaves its memo as it was, so the
// member keeps the one it has.
func renewed[V any](old, fresh []memberMemo[V], same func(a, b V) bool) []memberMemo[V] {
	if len(old) == len(fresh) {
		k := 0
		for k < len(old) && old[k].id == fresh[k].id && same(old[k].v, fresh[k].v) {
			k++
		}
		if k == len(old) {
			return old
		}
	}
	return slices.Clone(fresh)
}

// The memos' same methods report that two memos hold the same text and
// the same set (one slice, not only equal ones: a memo that took the set
// the caller holds now is a new memo) or topics.
func (p printedSet) same(q printedSet) bool {
	return p.ok == q.ok && p.text == q.text && sameSlice(p.set, q.set)
}

func (p parsedSet) same(q parsedSet) bool {
	return p.ok == q.ok && p.text == q.text && sameSlice(p.set, q.set)
}

func (p parsedTopics) same(q parsedTopics) bool {
	return p.ok == q.ok && p.text == q.text && sameSlice(p.topics, q.topics)
}

func (p subscriptionMemo) same(q subscriptionMemo) bool {
	return p.topics.same(q.topics) && p.owned.same(q.owned)
}

// sameSlice reports whether a and b are the same slice: same length, and
// the same array when not empty.
func sameSlice[E any](a, b []E) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// codecMemo is what a member remembers of the metadata it printed and read:
// as a member, its owned set as printed in its last JoinGroup and the
// assigned set read from its last SyncGroup response; as the leader, the
// topics and owned sets read from the members' subscriptions and the
// assigned sets printed into their assignments in the last round it led,
// sorted by member id.
//
// It also remembers the last assignment the member found to hold only
// topics it subscribes to (subscribed, with subscribedTo the subscription
// slice it had then): the member owns that set until its next sync, and
// its next join asks the same question of it again (revokeUnsubscribed).
type codecMemo struct {
	owned        printedSet
	assigned     parsedSet
	claims       []memberMemo[subscriptionMemo]
	assigns      []memberMemo[printedSet]
	subscribed   spec.Set
	subscribedTo []string
}

// same reports whether c and d hold the same memos (the leader's lists
// compared as slices: renewed keeps a list that did not change).
func (c *codecMemo) same(d *codecMemo) bool {
	return c.owned.same(d.owned) && c.assigned.same(d.assigned) && sameSlice(c.claims, d.claims) && sameSlice(c.assigns, d.assigns) &&
		sameSlice(c.subscribed, d.subscribed) && sameSlice(c.subscribedTo, d.subscribedTo)
}

// onlySubscribed reports whether s holds only resources of topics the
// member subscribes to (m.unsubscribed(s) is empty), without walking s
// when the memo remembers it so (rememberedSubscribed).
func (m *Member) onlySubscribed(s spec.Set) bool {
	return m.rememberedSubscribed(s) || m.unsubscribed(s).IsEmpty()
}

// rememberedSubscribed reports whether s is the set the memo last found to
// hold only subscribed topics, under the member's current subscription:
// sets and subscriptions are replaced whole, never changed in place, and
// the memo keeps both alive, so the same slices hold the same values.
func (m *Member) rememberedSubscribed(s spec.Set) bool {
	return m.memo != nil && sameSlice(m.memo.subscribed, s) && sameSlice(m.memo.subscribedTo, m.topics)
}

// codec returns a copy of the member's memo, for the caller to update and
// install with remember.
func (m *Member) codec() codecMemo {
	if m.memo == nil {
		return codecMemo{}
	}
	return *m.memo
}

// remember installs c as the member's memo: a new one, unless c holds what
// the current one does (most calls print and read what the last did, and
// a memo, shared by the member's copies, is never changed in place).
func (m *Member) remember(c codecMemo) {
	if cur := m.codec(); c.same(&cur) {
		return
	}
	p := new(codecMemo)
	*p = c
	m.memo = p
}
