package classic

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// memoResource draws a resource of a few topics and connectors, valid or
// not (a negative partition other than a connector's is invalid).
var memoResource = rapid.Custom(func(t *rapid.T) spec.Resource {
	topic := rapid.SampledFrom([]string{"a", "b", "t-1", "c", "x y", "p,q"}).Draw(t, "topic")
	return spec.Resource{Topic: topic, Partition: rapid.Int32Range(-2, 12).Draw(t, "partition")}
})

// memoSets draws a few sets, some of them nil, empty, unsorted or with
// duplicates, for the memos to meet again and again.
func memoSets(t *rapid.T) []spec.Set {
	pool := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) spec.Set {
		rs := rapid.SliceOfN(memoResource, 0, 8).Draw(t, "resources")
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			return spec.Set(rs) // as drawn: maybe not a set
		default:
			return spec.NewSet(rs...)
		}
	}), 1, 5).Draw(t, "sets")
	return pool
}

// memoTexts draws a few texts for spec.ParseSet: printed sets, the same
// resources reordered, separated by commas or listed twice, and garbage.
func memoTexts(t *rapid.T) []string {
	var pool []string
	for _, s := range memoSets(t) {
		text := s.String()
		switch rapid.IntRange(0, 5).Draw(t, "mangle") {
		case 0:
			text = strings.ReplaceAll(text, " ", ", ")
		case 1:
			if len(s) > 0 {
				text = "{" + s[len(s)-1].String() + " " + text[1:]
			}
		case 2:
			text = text[:rapid.IntRange(0, len(text)).Draw(t, "cut")]
		case 3:
			text = " " + text + " "
		}
		pool = append(pool, text)
	}
	return pool
}

// TestPrintedSetIsBuildString: whatever sets a printedSet meets, in any
// order and again and again, it writes what spec.Set.BuildString writes,
// and remembers the last set with its text.
func TestPrintedSetIsBuildString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := memoSets(t)
		var memo printedSet
		for i := range rapid.IntRange(1, 12).Draw(t, "calls") {
			s := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "pick")]
			if rapid.Bool().Draw(t, "copy") {
				s = slices.Clone(s) // equal, another array
			}
			var got, want strings.Builder
			prefix := fmt.Sprintf("call %d:", i)
			got.WriteString(prefix)
			want.WriteString(prefix)
			memo.print(&got, s)
			s.BuildString(&want)
			if got.String() != want.String() {
				t.Fatalf("print(%v) wrote %q, BuildString %q", s, got.String(), want.String())
			}
			if !memo.ok || !memo.set.Equal(s) || memo.text != s.String() {
				t.Fatalf("after print(%v) the memo holds %v as %q", s, memo.set, memo.text)
			}
			if len(s) > 0 && &memo.set[0] != &s[0] {
				t.Fatalf("after print(%v) the memo holds an older copy of it, and what that copy keeps alive", s)
			}
		}
	})
}

// TestParsedSetIsParseSet: whatever texts a parsedSet meets, in any order
// and again and again, among them texts the reader printed itself (of
// sets and of things that are not sets, over topics whose names hold
// separators or not), it returns what spec.ParseSet returns (the same
// set, nil and empty told apart, or the same error), and remembers the
// last text it read with its set.
func TestParsedSetIsParseSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := memoTexts(t)
		sets := memoSets(t)
		var memo parsedSet
		var printed printedSet
		for range rapid.IntRange(1, 12).Draw(t, "calls") {
			text := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "pick")]
			if rapid.Bool().Draw(t, "printed") {
				var b strings.Builder
				printed.print(&b, sets[rapid.IntRange(0, len(sets)-1).Draw(t, "print")])
				text = b.String()
			}
			before := memo
			got, gerr := memo.parse(text, &printed)
			if len(got) > 0 && len(printed.set) > 0 && &got[0] == &printed.set[0] {
				t.Fatalf("parse(%q) returned the printed set's array, which may be a whole round's", text)
			}
			want, werr := spec.ParseSet(text)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("parse(%q) = %#v, %v; ParseSet %#v, %v", text, got, gerr, want, werr)
			}
			switch {
			case werr != nil && !reflect.DeepEqual(memo, before):
				t.Fatalf("a failed parse(%q) changed the memo", text)
			case werr == nil && (!memo.ok || memo.text != text || !reflect.DeepEqual(memo.set, want)):
				t.Fatalf("after parse(%q) the memo holds %q as %v", text, memo.text, memo.set)
			}
		}
	})
}

// TestCodecMemoIsCodec: the metadata codec through memos (encode,
// decodeSubscription, decodeAssignment) gives what Encode,
// DecodeSubscription and DecodeAssignment give, for any sequence of
// subscriptions and assignments.
func TestCodecMemoIsCodec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sets := memoSets(t)
		set := func(label string) spec.Set { return sets[rapid.IntRange(0, len(sets)-1).Draw(t, label)] }
		var (
			subPrint, asgPrint printedSet
			subRead            subscriptionMemo
			asgRead            parsedSet
		)
		for range rapid.IntRange(1, 10).Draw(t, "calls") {
			s := Subscription{Topics: []string{"a", "b"}, Owned: set("owned"), Generation: spec.Generation(rapid.IntRange(-1, 3).Draw(t, "gen")), Leader: "L-1"}
			a := Assignment{Assigned: set("assigned"), Revoked: set("revoked"), Delay: Millis(rapid.IntRange(0, 2).Draw(t, "delay")), Leader: "L-1"}
			smd, amd := s.encode(&subPrint), a.encode(&asgPrint)
			if smd != s.Encode() || amd != a.Encode() {
				t.Fatalf("encode through the memo: %q and %q, Encode %q and %q", smd, amd, s.Encode(), a.Encode())
			}
			gs, gerr := decodeSubscription(smd, &subRead, &asgPrint)
			ws, werr := DecodeSubscription(smd)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(gs, ws) {
				t.Fatalf("decodeSubscription(%q) = %+v, %v; DecodeSubscription %+v, %v", smd, gs, gerr, ws, werr)
			}
			ga, gerr := decodeAssignment(amd, &asgRead, &subPrint)
			wa, werr := DecodeAssignment(amd)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(ga, wa) {
				t.Fatalf("decodeAssignment(%q) = %+v, %v; DecodeAssignment %+v, %v", amd, ga, gerr, wa, werr)
			}
		}
	})
}

// referenceTopics is how DecodeSubscription read the topics field before
// parseTopics: sorted (slices.IsSorted) and distinct (slices.Compact
// removes nothing).
func referenceTopics(f string) ([]string, error) {
	t, ok := strings.CutPrefix(f, "[")
	if ok {
		t, ok = strings.CutSuffix(t, "]")
	}
	if !ok {
		return nil, errors.New("topics: want [t1 t2 ...]")
	}
	ts := strings.Fields(t)
	if !slices.IsSorted(ts) || len(slices.Compact(slices.Clone(ts))) != len(ts) {
		return nil, errors.New("topics must be sorted and distinct")
	}
	return ts, nil
}

// TestParseTopicsIsReference: parseTopics, and parsedTopics met with the
// same fields again and again, read what referenceTopics reads, and fail
// where it fails with the same error.
func TestParseTopicsIsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string {
			ts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "t-1", ""}), 0, 5).Draw(t, "topics")
			f := strings.Join(ts, rapid.SampledFrom([]string{" ", "  ", "\t"}).Draw(t, "sep"))
			switch rapid.IntRange(0, 5).Draw(t, "frame") {
			case 0:
				return f
			case 1:
				return "[" + f
			default:
				return "[" + f + "]"
			}
		}), 1, 4).Draw(t, "fields")
		var memo parsedTopics
		for range rapid.IntRange(1, 8).Draw(t, "calls") {
			f := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "pick")]
			want, werr := referenceTopics(f)
			for name, read := range map[string]func(string) ([]string, error){"parseTopics": parseTopics, "parsedTopics": memo.parse} {
				got, gerr := read(f)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s(%q) = %#v, %v; reference %#v, %v", name, f, got, gerr, want, werr)
				}
			}
		}
	})
}

// checkMemoUnchanged fails t when m's memo no longer pairs its sets and
// texts as printing and reading them does: a set shared through the memo
// was modified in place.
func checkMemoUnchanged(t testing.TB, m *Member) {
	t.Helper()
	printed := func(what string, p printedSet) {
		if p.ok && p.set.String() != p.text {
			t.Fatalf("memo %s: set %v printed as %q", what, p.set, p.text)
		}
	}
	parsed := func(what string, p parsedSet) {
		if s, err := spec.ParseSet(p.text); p.ok && (err != nil || !reflect.DeepEqual(s, p.set)) {
			t.Fatalf("memo %s: %q read as %v", what, p.text, p.set)
		}
	}
	memo := m.codec()
	printed("owned", memo.owned)
	parsed("assigned", memo.assigned)
	for _, c := range memo.claims {
		id, p := c.id, c.v
		parsed("claims of "+string(id), p.owned)
		if ts, err := parseTopics(p.topics.text); p.topics.ok && (err != nil || !reflect.DeepEqual(ts, p.topics.topics)) {
			t.Fatalf("memo topics of %s: %q read as %q", id, p.topics.text, p.topics.topics)
		}
	}
	for _, a := range memo.assigns {
		printed("assignment of "+string(a.id), a.v)
	}
	probe := Member{topics: memo.subscribedTo}
	if dropped := probe.unsubscribed(memo.subscribed); !dropped.IsEmpty() {
		t.Fatalf("memo: %v remembered as subscribed under %q, but %v is not", memo.subscribed, memo.subscribedTo, dropped)
	}
}

// TestSyncRemembersSubscribed: a member that syncs an assignment of topics
// it subscribes to remembers it, under its subscription, so that its next
// join does not walk the set it owns again; one that changes its
// subscription meanwhile walks it, and revokes what it left. (The harness
// checks every step against a member without the memo.)
func TestSyncRemembersSubscribed(t *testing.T) {
	h := newHarness(t, testConfig(withTopics("t", "u")))
	h.round(set(t, "{t-0 u-1}"))
	memo := h.m.codec()
	if !sameSlice(memo.subscribed, h.m.owned) || !sameSlice(memo.subscribedTo, h.m.topics) || len(memo.subscribed) != 2 {
		t.Fatalf("after the sync the memo holds %v under %q; want the owned set %v under %q", memo.subscribed, memo.subscribedTo, h.m.owned, h.m.topics)
	}
	// The memo's subscription is no longer the member's: the join walks
	// the owned set and revokes what the member left.
	wantOutput(t, "a subscription that leaves u", h.step(node.Subscribe{Topics: []string{"t"}}),
		"send A->coordinator JoinGroup#3 member=A-1 protocols=[coop=topics=[t];owned={t-0};gen=1;leader=L-1]\n"+
			"set request@35000\n"+
			"callback revoked {u-1} gen=1\n")
}

// TestMemoRenewal: a leader's list of memos is kept as it is when a round
// holds the same memos of the same members, and copied otherwise; a memo
// is the same as another only with the same text, the same slice and the
// same success; a member installs a new memo only when it changed.
func TestMemoRenewal(t *testing.T) {
	s := set(t, "{a-0 a-1}")
	printed := printedSet{set: s, text: "{a-0 a-1}", ok: true}
	parsed := parsedSet{text: "{a-0 a-1}", set: s, ok: true}
	topics := parsedTopics{text: "[a]", topics: []string{"a"}, ok: true}
	for name, c := range map[string]struct {
		same, want bool
	}{
		"printed itself":       {printed.same(printed), true},
		"printed other text":   {printed.same(printedSet{set: s, text: "{a-0,a-1}", ok: true}), false},
		"printed equal set":    {printed.same(printedSet{set: slices.Clone(s), text: printed.text, ok: true}), false},
		"printed not ok":       {printed.same(printedSet{set: s, text: printed.text}), false},
		"parsed itself":        {parsed.same(parsed), true},
		"parsed other text":    {parsed.same(parsedSet{text: "{a-1}", set: s, ok: true}), false},
		"parsed equal set":     {parsed.same(parsedSet{text: parsed.text, set: slices.Clone(s), ok: true}), false},
		"parsed not ok":        {parsed.same(parsedSet{text: parsed.text, set: s}), false},
		"topics itself":        {topics.same(topics), true},
		"topics other text":    {topics.same(parsedTopics{text: "[b]", topics: topics.topics, ok: true}), false},
		"topics equal slice":   {topics.same(parsedTopics{text: topics.text, topics: []string{"a"}, ok: true}), false},
		"topics not ok":        {topics.same(parsedTopics{text: topics.text, topics: topics.topics}), false},
		"subscription itself":  {subscriptionMemo{topics, parsed}.same(subscriptionMemo{topics, parsed}), true},
		"subscription topics":  {subscriptionMemo{topics, parsed}.same(subscriptionMemo{parsedTopics{}, parsed}), false},
		"subscription owned":   {subscriptionMemo{topics, parsed}.same(subscriptionMemo{topics, parsedSet{}}), false},
		"empty slices":         {sameSlice([]int{}, nil), true},
		"different lengths":    {sameSlice(s, s[:1]), false},
		"same array, same len": {sameSlice(s[:1], s[:1:1]), true},
	} {
		if c.same != c.want {
			t.Errorf("%s: same = %t, want %t", name, c.same, c.want)
		}
	}

	old := []memberMemo[printedSet]{{"A", printed}, {"B", printed}}
	if got := renewed(old, slices.Clone(old), printedSet.same); &got[0] != &old[0] {
		t.Error("renewed copied a list that holds the same memos")
	}
	for name, fresh := range map[string][]memberMemo[printedSet]{
		"a memo changed":   {{"A", printed}, {"B", printedSet{}}},
		"a member renamed": {{"A", printed}, {"C", printed}},
		"a member more":    {{"A", printed}, {"B", printed}, {"C", printed}},
		"a member less":    {{"A", printed}},
	} {
		got := renewed(old, fresh, printedSet.same)
		if !reflect.DeepEqual(got, fresh) || &got[0] == &fresh[0] || &got[0] == &old[0] {
			t.Errorf("%s: renewed gave %v, want a copy of %v", name, got, fresh)
		}
	}
	// A cursor finds each member asked in id order, skipping the ones
	// not asked (A), and nothing for one it does not hold (AB, C).
	cur := memoCursor[printedSet]([]memberMemo[printedSet]{{"A", printedSet{}}, {"B", printed}, {"D", printed}})
	for _, c := range []struct {
		id    spec.MemberID
		found bool
	}{{"AB", false}, {"B", true}, {"C", false}, {"D", true}, {"E", false}} {
		if got := cur.of(c.id); got.ok != c.found || c.found && !got.same(printed) {
			t.Errorf("cursor of(%s) = %v, found %t", c.id, got, c.found)
		}
	}

	m := &Member{}
	m.remember(codecMemo{})
	if m.memo != nil {
		t.Error("remembering nothing installed a memo")
	}
	m.remember(codecMemo{owned: printed, assigns: old})
	installed := m.memo
	if installed == nil || !installed.owned.same(printed) {
		t.Fatal("a changed memo was not installed")
	}
	m.remember(m.codec())
	if m.memo != installed {
		t.Error("an unchanged memo was installed again")
	}
	m.remember(codecMemo{owned: printed, assigns: slices.Clone(old)})
	if m.memo == installed {
		t.Error("a memo with a new list of assignments was not installed")
	}
	m.remember(codecMemo{owned: printed, assigns: old, assigned: parsed})
	if !m.memo.assigned.same(parsed) {
		t.Error("a memo with a new assigned set was not installed")
	}
	claims := []memberMemo[subscriptionMemo]{{"A", subscriptionMemo{topics, parsed}}}
	m.remember(codecMemo{owned: printed, assigns: old, assigned: parsed, claims: claims})
	if len(m.memo.claims) != 1 {
		t.Error("a memo with a new list of claims was not installed")
	}
	m.remember(codecMemo{owned: printedSet{}, assigns: old, assigned: parsed, claims: claims})
	if m.memo.owned.ok {
		t.Error("a memo with a new owned set was not installed")
	}
	topicsNow := []string{"a"}
	m.remember(codecMemo{assigns: old, assigned: parsed, claims: claims, subscribed: s, subscribedTo: topicsNow})
	if !sameSlice(m.memo.subscribed, s) || !sameSlice(m.memo.subscribedTo, topicsNow) {
		t.Error("a memo with a new subscribed set was not installed")
	}
	m.remember(codecMemo{assigns: old, assigned: parsed, claims: claims, subscribed: s, subscribedTo: slices.Clone(topicsNow)})
	if sameSlice(m.memo.subscribedTo, topicsNow) {
		t.Error("a memo under a new subscription slice was not installed")
	}
}

// TestReadsBack: readsBack is true exactly for the sets whose text
// spec.ParseSet reads back as the same set, checked against ParseSet on
// hand-made cases: sets, and slices that are not sets (unsorted, a
// resource twice, an empty topic, a partition below a connector's), over
// topics whose names hold a separator or not.
func TestReadsBack(t *testing.T) {
	tp := func(topic string, p int32) spec.Resource { return spec.Resource{Topic: topic, Partition: p} }
	for _, s := range []spec.Set{
		nil,
		{},
		{tp("a", 0), tp("a", 1), tp("b", 0)},
		{spec.Connector("c"), tp("c", 0), tp("c", 1)},
		{tp("t-1", 2), tp("t-1", 10)},
		{tp("a", 1), tp("a", 1)},
		{tp("a", 2), tp("a", 1)},
		{tp("b", 0), tp("a", 0)},
		{tp("a", 0), tp("b", 0), tp("a", 1)},
		{tp("", 1)},
		{tp("a", -2)},
		{tp("a", 0), tp("a", -2)},
		{tp("x y", 1)},
		{tp("a", 0), tp("p,q", 1)},
	} {
		back, err := spec.ParseSet(s.String())
		want := err == nil && slices.Equal(back, s) && (len(s) > 0 || back == nil)
		if got := readsBack(s); got != want {
			t.Errorf("readsBack(%#v) = %t; ParseSet reads %q as %v, %v", s, got, s.String(), back, err)
		}
	}
}
