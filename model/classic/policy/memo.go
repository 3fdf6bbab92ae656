package policy

import (
	"encoding/binary"
	"maps"
	"sync"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// memoEntries bounds how many results a Memo keeps for one protocol
// configuration: past it, new inputs are assigned without being kept, so
// that a long simulation cannot grow a memo without end. The model
// checker's worlds see a few thousand distinct rounds.
const memoEntries = 1 << 16

// Memo remembers the results of Deferred's and Incremental's Assign by
// their whole input, for callers that assign the same rounds again and
// again: the model checker reaches one round from many states (in its
// incremental world some 30,000 rounds on 7,600 distinct inputs). Assign
// is a pure function of its protocol's configuration and its LeaderInput,
// so a remembered result is the result; a Memo changes how often a round
// is computed, nothing else.
//
// A Memo is safe for concurrent use. Its zero value is ready to use; it is
// shared by pointer (WithMemo), and keeps no reference to what callers may
// change: it keeps its own copy of each result and hands out a new copy at
// every call, which shares only sets with it (spec.Set values, which no
// one changes in place).
type Memo struct {
	mu sync.Mutex
	// results holds, for each configuration (a connectPolicy without its
	// memo), the results by input key (appendInputKey).
	results map[connectPolicy]map[string]classic.LeaderResult
}

// WithMemo returns p remembering its results in memo when p is one of
// Deferred's and Incremental's protocols, and p itself otherwise (or when
// memo is nil). The protocol returned behaves as p does, result for
// result; it prints as p with the memo's address.
func WithMemo(p classic.Protocol, memo *Memo) classic.Protocol {
	if cp, ok := p.(connectPolicy); ok && memo != nil {
		cp.memo = memo
		return cp
	}
	return p
}

// assign returns p.assign(in), remembered under p's configuration and in.
// Errors are not remembered.
func (m *Memo) assign(p connectPolicy, in classic.LeaderInput) (classic.LeaderResult, error) {
	p.memo = nil
	var buf [512]byte
	key := appendInputKey(buf[:0], in)
	m.mu.Lock()
	res, ok := m.results[p][string(key)]
	m.mu.Unlock()
	if ok {
		return cloneResult(res), nil
	}
	res, err := p.assign(in)
	if err != nil {
		return res, err
	}
	kept := cloneResult(res)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.results == nil {
		m.results = map[connectPolicy]map[string]classic.LeaderResult{}
	}
	byInput := m.results[p]
	if byInput == nil {
		byInput = map[string]classic.LeaderResult{}
		m.results[p] = byInput
	}
	if len(byInput) < memoEntries {
		byInput[string(key)] = kept
	}
	return res, nil
}

// cloneResult returns a copy of r that shares only its sets with it.
func cloneResult(r classic.LeaderResult) classic.LeaderResult {
	r.Assignments = maps.Clone(r.Assignments)
	r.Memory = r.Memory.Clone()
	return r
}

// appendInputKey appends to b an encoding of every field of in, in
// declaration order, that tells any two different inputs apart (nil slices
// and maps from empty ones too): every variable-length part is written
// after its length, a nil one as length 0 and any other as its length plus
// one, and maps in the order of their keys.
func appendInputKey(b []byte, in classic.LeaderInput) []byte {
	b = binary.AppendVarint(b, int64(in.Now))
	b = binary.AppendVarint(b, int64(in.Generation))
	b = appendKeyString(b, string(in.Leader))
	b = binary.AppendVarint(b, int64(in.LastCompletedGeneration))
	b = appendKeyLen(b, in.Members == nil, len(in.Members))
	for _, j := range in.Members {
		b = appendKeyString(b, string(j.ID))
		b = appendKeyString(b, j.InstanceID)
		s := &j.Subscription
		b = appendKeyLen(b, s.Topics == nil, len(s.Topics))
		for _, t := range s.Topics {
			b = appendKeyString(b, t)
		}
		b = appendKeySet(b, s.Owned)
		b = binary.AppendVarint(b, int64(s.Generation))
		b = appendKeyString(b, string(s.Leader))
	}
	b = appendKeyLen(b, in.Topics == nil, len(in.Topics))
	var names [16]string
	for _, t := range spec.AppendSortedKeys(names[:0], in.Topics) {
		b = appendKeyString(b, t)
		b = binary.AppendVarint(b, int64(in.Topics[t]))
	}
	mem := &in.Memory
	b = binary.AppendVarint(b, int64(mem.Generation))
	b = appendKeyLen(b, mem.Assignment == nil, len(mem.Assignment))
	var ids [16]spec.MemberID
	for _, id := range spec.AppendSortedKeys(ids[:0], mem.Assignment) {
		b = appendKeyString(b, string(id))
		b = appendKeySet(b, mem.Assignment[id])
	}
	b = appendKeyIDs(b, mem.Members)
	b = binary.AppendVarint(b, int64(mem.ScheduledAt))
	b = appendKeySet(b, mem.Lost)
	b = appendKeyIDs(b, mem.Candidates)
	b = binary.AppendVarint(b, int64(mem.SuccessiveRevokingRounds))
	b = appendKeyLen(b, false, boolInt(mem.Revoked))
	b = appendKeySet(b, mem.Revocation)
	return binary.AppendUvarint(b, uint64(in.Faults))
}

// appendKeyLen appends a length: 0 for nil, n+1 otherwise.
func appendKeyLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return binary.AppendUvarint(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// appendKeyString appends s after its length.
func appendKeyString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendKeySet appends s's length, then each resource's topic and
// partition.
func appendKeySet(b []byte, s spec.Set) []byte {
	b = appendKeyLen(b, s == nil, len(s))
	for _, x := range s {
		b = appendKeyString(b, x.Topic)
		b = binary.AppendVarint(b, int64(x.Partition))
	}
	return b
}

// appendKeyIDs appends ids after their length.
func appendKeyIDs(b []byte, ids []spec.MemberID) []byte {
	b = appendKeyLen(b, ids == nil, len(ids))
	for _, id := range ids {
		b = appendKeyString(b, string(id))
	}
	return b
}

// boolInt is 1 for true, 0 for false.
func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
