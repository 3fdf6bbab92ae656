package spec

import (
	"fmt"
	"slices"
	"strings"
)

// View is the ownership view that every state maps to: for each member
// process, what it believes it owns, at which generation or epoch, and
// whether it is a current member. The laws are written once, over views, and
// are used by property tests, the model checker, simulations and the trace
// oracle alike.
//
// Invariant: Members is sorted by Name and names are unique.
type View struct {
	// Topics is the resource universe at this state.
	Topics Topics
	// Members lists every member process the state knows of, including
	// departed ones that still believe they own something (zombies).
	Members []MemberView
}

// MemberView is one member process as the laws see it.
type MemberView struct {
	// Name is the process's stable name in the scenario (for example "A");
	// it survives restarts and new member ids.
	Name string
	// ID is the member id the process currently uses, "" when it has none.
	ID MemberID
	// Current reports whether the group coordinator counts this membership
	// (ID) as a member of the group in its current generation or epoch.
	Current bool
	// Fenced reports, for a member that is not Current, that the group
	// removed it (its session or the JoinGroup barrier expired) while its
	// process lives on: a zombie whose work the protocol fences (its
	// generation or epoch is stale, so commits are rejected) or, in
	// Connect's designs, tolerates. A member that left of its own accord
	// is not Fenced: it had to give up its work first. The
	// exclusive-ownership law tolerates fenced zombies and nothing else
	// (ExclusiveOwnership says why, per protocol).
	Fenced bool
	// Generation is the generation (classic) or member epoch (next-gen, as
	// a Generation value) at which the member holds Owns.
	Generation Generation
	// Subscription is the member's subscribed topics, sorted.
	Subscription []string
	// Owns is what the member believes it owns and is working on.
	Owns Set
	// Revoking is the part of Owns the member has been told to give up and
	// has not yet released (next-gen revocation in progress). A member may
	// own a resource of a topic it no longer subscribes to only while it is
	// in Revoking.
	Revoking Set
}

// Member returns the view of the member named name, and whether it exists.
func (v View) Member(name string) (MemberView, bool) {
	if m := v.Find(name); m != nil {
		return *m, true
	}
	return MemberView{}, false
}

// Find returns the view of the member named name in v.Members (sorted by
// name, see Sort), nil when there is none: Member without copying the
// view, for the laws checked at every step. The caller must not change it.
func (v View) Find(name string) *MemberView {
	lo, hi := 0, len(v.Members)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if v.Members[mid].Name < name {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(v.Members) && v.Members[lo].Name == name {
		return &v.Members[lo]
	}
	return nil
}

// Subscribes reports whether the member subscribes to topic.
func (m MemberView) Subscribes(topic string) bool {
	_, ok := slices.BinarySearch(m.Subscription, topic)
	return ok
}

// Sort sorts v.Members by name in place and returns v; builders of views
// call it once before handing the view to the laws.
func (v View) Sort() View {
	slices.SortFunc(v.Members, func(a, b MemberView) int { return strings.Compare(a.Name, b.Name) })
	for i := range v.Members {
		if !slices.IsSorted(v.Members[i].Subscription) {
			v.Members[i].Subscription = slices.Sorted(slices.Values(v.Members[i].Subscription))
		}
	}
	return v
}

// String prints v deterministically, one member per line:
//
//	A id=A-1 gen=3 current owns={t-0 t-1} subs=[t]
func (v View) String() string {
	var b strings.Builder
	for _, m := range v.Members {
		b.WriteString(m.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// String prints one member view on one line.
func (m MemberView) String() string {
	status := "current"
	switch {
	case m.Current:
	case m.Fenced:
		status = "fenced"
	default:
		status = "departed"
	}
	id := string(m.ID)
	if id == "" {
		id = "-"
	}
	s := fmt.Sprintf("%s id=%s gen=%d %s owns=%s subs=[%s]", m.Name, id, m.Generation, status, m.Owns, strings.Join(m.Subscription, " "))
	if !m.Revoking.IsEmpty() {
		s += " revoking=" + m.Revoking.String()
	}
	return s
}
