package cost

// timerTable finds a node's timer entries by timer. A member has a
// handful of timers (one per kind: three at most in either family),
// which a short list finds by comparing them faster than a map hashes
// their names (the member's timers are looked up at every heartbeat it
// arms and every firing); past listMax timers, as the coordinator's (one
// per member and kind), it is a map. Only lookups go through it, never a
// walk, so the order it keeps them in changes no result.
//
// The list and its entries live inside the table, and a proc holds its
// table by value: in a group of a thousand members a heartbeat's process
// is rarely in the cache, and each pointer followed from it to its table,
// its list and an entry was a cache miss of its own at every firing and
// every re-arming (docs/costs.md, tenth pass).
type timerTable[T comparable] struct {
	n    int                   // list[:n] in use, while m is nil; list[n:] stale
	list [listMax]timerSlot[T] // inline: no pointer to follow
	m    map[T]*timerEntry     // past listMax timers
}

// timerSlot is one timer of a timerTable's list with its entry.
type timerSlot[T comparable] struct {
	timer T
	ent   timerEntry
}

// listMax is the most timers a timerTable keeps in its list.
const listMax = 4

// get returns t's entry, nil when t has none. The entry stays t's until
// the next put or del on the table (either may move list entries).
func (tt *timerTable[T]) get(t T) *timerEntry {
	if tt.m != nil {
		return tt.m[t]
	}
	for i := range tt.list[:tt.n] {
		if tt.list[i].timer == t {
			return &tt.list[i].ent
		}
	}
	return nil
}

// put gives t a new zero entry and returns it; t must have none. The
// entry stays t's until the next put or del on the table.
func (tt *timerTable[T]) put(t T) *timerEntry {
	if tt.m == nil && tt.n < listMax {
		tt.list[tt.n] = timerSlot[T]{timer: t}
		tt.n++
		return &tt.list[tt.n-1].ent
	}
	if tt.m == nil {
		tt.m = make(map[T]*timerEntry, 4*listMax)
		for i := range tt.list[:tt.n] {
			ent := tt.list[i].ent
			tt.m[tt.list[i].timer] = &ent
		}
	}
	ent := &timerEntry{}
	tt.m[t] = ent
	return ent
}

// del forgets t's entry, if any.
func (tt *timerTable[T]) del(t T) {
	if tt.m != nil {
		delete(tt.m, t)
		return
	}
	for i := range tt.list[:tt.n] {
		if tt.list[i].timer == t {
			tt.n--
			tt.list[i] = tt.list[tt.n] // list[n] is stale now: put overwrites it whole
			return
		}
	}
}
