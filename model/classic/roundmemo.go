package classic

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the leaders' round memo (RoundMemo) and the leader
// memory a member keeps (keptMemory), which the memo hands out to every
// member that leads the same round.

// roundMemoEntries bounds how many rounds a RoundMemo keeps for one
// protocol: past it, new rounds are computed without being kept, so that
// a long run cannot grow a memo without end. The model checker's worlds
// at the default bounds lead at most 7,600 distinct rounds (incremental);
// a round holds every member's assignment, so a large group's rounds are
// large, and a bigger bound would hold hundreds of megabytes of them.
const roundMemoEntries = 1 << 14

// RoundMemo remembers the rounds members led (what lead computes from the
// JoinGroup response: the SyncGroup assignments, the round the checkers
// judge and the new leader memory) by everything the round reads: the
// protocol, the clock, the response's generation, leader and members with
// their metadata, and the leader's id, faults, last completed generation,
// topic metadata and leader memory. A round is a pure function of those
// (a Protocol is a pure value), so a remembered round is the round; a
// memo changes how often a round is computed, nothing else. The model
// checker leads one round from many states (in its incremental world some
// 30,000 rounds on 7,600 distinct inputs), and leading one is decoding
// every member's metadata, assigning, checking the result and encoding it.
//
// Rounds that fail (AssignorFailed) are not remembered, nor rounds of a
// protocol whose value cannot be compared (a map key). A RoundMemo is safe
// for concurrent use; its zero value is ready to use. Members share one by
// their configurations (MemberConfig.Memo). What it hands out is shared
// by every member that led the same round, and no one changes it: the
// assignments, the round and the leader memory are only read.
type RoundMemo struct {
	mu     sync.Mutex
	rounds map[Protocol]map[string]*ledRound
}

// ledRound is a remembered round: what lead returns and the leader memory
// it leaves.
type ledRound struct {
	assignments []MemberAssignment
	round       *spec.Round
	memory      *keptMemory
}

// find returns the round remembered under proto and key, nil when there
// is none or proto cannot be a map key.
func (r *RoundMemo) find(proto Protocol, key []byte) *ledRound {
	// A protocol that is not comparable panics as a map key: nothing is
	// found for it.
	defer func() { _ = recover() }()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rounds[proto][string(key)]
}

// keep remembers led under proto and key, unless the memo holds
// roundMemoEntries rounds of proto already or proto cannot be a map key.
func (r *RoundMemo) keep(proto Protocol, key []byte, led *ledRound) {
	// A protocol that is not comparable panics as a map key: nothing is
	// kept for it.
	defer func() { _ = recover() }()
	r.mu.Lock()
	defer r.mu.Unlock()
	byKey := r.rounds[proto]
	if byKey == nil {
		if r.rounds == nil {
			r.rounds = map[Protocol]map[string]*ledRound{}
		}
		byKey = map[string]*ledRound{}
		r.rounds[proto] = byKey
	}
	if len(byKey) < roundMemoEntries {
		byKey[string(key)] = led
	}
}

// appendRoundKey appends to b an encoding of everything lead reads but
// the protocol (the memo's outer key), that tells any two different
// rounds apart: each variable-length part after its length (a nil slice
// or map apart from an empty one, which a protocol could tell apart),
// maps in the order of their keys.
func (m *Member) appendRoundKey(b []byte, now Millis, r JoinGroupResponse) []byte {
	b = binary.AppendVarint(b, int64(now))
	b = canon.AppendString(b, string(m.id))
	b = binary.AppendUvarint(b, uint64(m.cfg.Faults))
	b = binary.AppendVarint(b, int64(m.lastCompleted))
	b = binary.AppendVarint(b, int64(r.Generation))
	b = canon.AppendString(b, string(r.Leader))
	b = appendKeyLen(b, r.Members == nil, len(r.Members))
	for _, jm := range r.Members {
		b = canon.AppendString(b, string(jm.MemberID))
		b = canon.AppendString(b, jm.InstanceID)
		b = canon.AppendString(b, string(jm.Metadata))
	}
	var names [16]string
	topics := spec.AppendSortedKeys(names[:0], m.metadata)
	b = appendKeyLen(b, m.metadata == nil, len(topics))
	for _, t := range topics {
		b = canon.AppendString(b, t)
		b = binary.AppendVarint(b, int64(m.metadata[t]))
	}
	mem := m.leaderMemory()
	b = binary.AppendVarint(b, int64(mem.Generation))
	var ids [16]spec.MemberID
	owners := spec.AppendSortedKeys(ids[:0], mem.Assignment)
	b = appendKeyLen(b, mem.Assignment == nil, len(owners))
	for _, id := range owners {
		b = canon.AppendString(b, string(id))
		b = appendKeySet(b, mem.Assignment[id])
	}
	b = appendKeyIDs(b, mem.Members)
	b = binary.AppendVarint(b, int64(mem.ScheduledAt))
	b = appendKeySet(b, mem.Lost)
	b = appendKeyIDs(b, mem.Candidates)
	b = binary.AppendVarint(b, int64(mem.SuccessiveRevokingRounds))
	b = canon.AppendBool(b, mem.Revoked)
	return appendKeySet(b, mem.Revocation)
}

// appendKeyLen appends a length: 0 for nil, n+1 otherwise.
func appendKeyLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return binary.AppendUvarint(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// appendKeyIDs appends ids after their length.
func appendKeyIDs(b []byte, ids []spec.MemberID) []byte {
	b = appendKeyLen(b, ids == nil, len(ids))
	for _, id := range ids {
		b = canon.AppendString(b, string(id))
	}
	return b
}

// appendKeySet appends whether s is nil, then s (canon.AppendSet).
func appendKeySet(b []byte, s spec.Set) []byte {
	return canon.AppendSet(canon.AppendBool(b, s == nil), s)
}

// keptMemory is a leader memory as a member keeps it: never changed once
// made, shared by the member's copies and, through a RoundMemo, by every
// member that led the same round; with the recording of its canonical
// encoding (encodeLeaderMemory), for the encoders that write it again.
type keptMemory struct {
	LeaderMemory
	// encoding is the last recording of the memory's encoding
	// (canon.Encoder.Record), nil before the first; any encoder may
	// replace it. A cache only: no part of the member's behaviour.
	encoding atomic.Pointer[canon.Recording]
}

// encodeKeptMemory writes mem's encoding (encodeLeaderMemory): the
// recording an earlier encoding kept, when e may replay it, and otherwise
// the memory's fields, which it then records for the next encoder. Only
// an encoder that writes correlation ids records (the fairness keys leave
// them out, and the memory has none): so the model checker's encoders,
// which write most states, do not take turns replacing each other's
// recording.
func encodeKeptMemory(e *canon.Encoder, mem *keptMemory) {
	if e.ReplayKept(mem.encoding.Load()) {
		return
	}
	mark := e.Mark()
	encodeLeaderMemory(e, &mem.LeaderMemory)
	if e.SkipSeq {
		return
	}
	if r, ok := e.Record(mark); ok {
		mem.encoding.Store(&r)
	}
}
