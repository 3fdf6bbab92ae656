package timeline

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Step is a view and the time from which it holds.
type Step struct {
	At   float64
	View spec.View
}

// FromViews returns the timeline of a run that passes through steps (in
// time order) and ends at end: a lane per resource (the universe of the
// last view, in resource order, then any resource owned outside it), and
// a segment for each stretch of time a member owned a resource with the
// same standing. A holding is a zombie's while its member is Fenced.
func FromViews(title string, steps []Step, end float64) Timeline {
	t := Timeline{Title: title}
	type key struct {
		owner string
		r     spec.Resource
	}
	type open struct {
		from   float64
		zombie bool
	}
	held := map[key]open{}
	lanes := map[spec.Resource]bool{}
	closeAt := func(k key, o open, at float64) {
		t.Segments = append(t.Segments, Segment{Lane: k.r.String(), Owner: k.owner, From: o.from, To: at, Zombie: o.zombie})
	}
	for _, s := range steps {
		now := map[key]bool{}
		for _, m := range s.View.Members {
			for _, r := range m.Owns {
				k := key{m.Name, r}
				now[k] = m.Fenced
				lanes[r] = true
				if o, ok := held[k]; ok && o.zombie != m.Fenced {
					closeAt(k, o, s.At)
					delete(held, k)
				}
				if _, ok := held[k]; !ok {
					held[k] = open{s.At, m.Fenced}
				}
			}
		}
		for k, o := range held {
			if _, ok := now[k]; !ok {
				closeAt(k, o, s.At)
				delete(held, k)
			}
		}
	}
	for k, o := range held {
		closeAt(k, o, end)
	}
	if len(steps) > 0 {
		topics := steps[len(steps)-1].View.Topics
		for topic, n := range topics {
			for p := range n {
				lanes[spec.TP(topic, p)] = true
			}
			if topics.IsConnector(topic) {
				lanes[spec.Connector(topic)] = true
			}
		}
	}
	index := map[string]int{}
	for i, r := range slices.SortedFunc(maps.Keys(lanes), spec.Resource.Compare) {
		t.Lanes = append(t.Lanes, r.String())
		index[r.String()] = i
	}
	slices.SortFunc(t.Segments, func(a, b Segment) int {
		return cmp.Or(cmp.Compare(index[a.Lane], index[b.Lane]), cmp.Compare(a.From, b.From), strings.Compare(a.Owner, b.Owner))
	})
	return t
}
