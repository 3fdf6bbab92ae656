package cost

// timerTable finds a node's timer entries by timer. A member has a
// handful of timers (one per kind), which a short list finds by comparing
// them faster than a map hashes their names (the member's timers are
// looked up at every heartbeat it arms and every firing); past listMax
// timers, as the coordinator's (one per member and kind), it is a map.
// Only lookups go through it, never a walk, so the order it keeps them in
// changes no result.
type timerTable[T comparable] struct {
	list []timerSlot[T] // while m is nil
	m    map[T]*timerEntry
}

// timerSlot is one timer of a timerTable's list with its entry.
type timerSlot[T comparable] struct {
	timer T
	ent   *timerEntry
}

// listMax is the most timers a timerTable keeps in its list.
const listMax = 8

// get returns t's entry, nil when t has none.
func (tt *timerTable[T]) get(t T) *timerEntry {
	if tt.m != nil {
		return tt.m[t]
	}
	for i := range tt.list {
		if tt.list[i].timer == t {
			return tt.list[i].ent
		}
	}
	return nil
}

// put records ent as t's entry; t must have none.
func (tt *timerTable[T]) put(t T, ent *timerEntry) {
	if tt.m == nil && len(tt.list) < listMax {
		tt.list = append(tt.list, timerSlot[T]{t, ent})
		return
	}
	if tt.m == nil {
		tt.m = make(map[T]*timerEntry, 2*listMax)
		for _, s := range tt.list {
			tt.m[s.timer] = s.ent
		}
		tt.list = nil
	}
	tt.m[t] = ent
}

// del forgets t's entry, if any.
func (tt *timerTable[T]) del(t T) {
	if tt.m != nil {
		delete(tt.m, t)
		return
	}
	for i := range tt.list {
		if tt.list[i].timer == t {
			last := len(tt.list) - 1
			tt.list[i] = tt.list[last]
			tt.list[last] = timerSlot[T]{}
			tt.list = tt.list[:last]
			return
		}
	}
}
