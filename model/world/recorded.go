package world

import (
	"reflect"
	"slices"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// The recorded encodings: a frozen world's nodes and metadata, encoded
// once and replayed by the forks that share them (see Model.Encode).

// A node's encoding is recorded (canon.Encoder.RecordSpan) with the clock,
// commits flag and SkipSeq it was written with, for the forks that share
// the node unchanged: most steps change one node or none, and encoding the
// others again is most of the cost of encoding a state. It is replayed
// (canon.Encoder.ReplayKept) under the same commits flag and SkipSeq, and
// under the same clock or, when all its instants stand at its top level,
// any clock.

// coordinatorSpan labels the coordinator's span in Encoder.Spans; a
// process's is its index in World.Names.
const coordinatorSpan = -1

// noteSpan notes what e wrote after mark as the span of node label
// (coordinatorSpan or a process's index), for Keep to record if the state
// is new; not when it was written renamed or with identities abstracted,
// which cannot be replayed.
func noteSpan(e *canon.Encoder, mark canon.Mark, label int) {
	if !e.Plain() {
		return
	}
	e.Spans = append(e.Spans, canon.Span{From: mark, To: e.Mark(), Label: label})
}

// Keep records the encodings of the nodes s's world made or changed (the
// spans Encode noted in e), for the forks that share them to replay: the
// checker calls it with the encoder that has just encoded s, once it
// found s new (checker.Keeper). A state dropped as already seen is
// never recorded, and most successors are. The spares s's world did not
// use it lets go (spares.forKeeps): a frontier state would hold them
// until expanded.
func (m *Model[M, T, C, P]) Keep(e *canon.Encoder, s *State[M, T, C, P]) {
	w := s.W
	if sp := w.spare; sp != nil {
		sp.forKeeps()
	}
	for _, sp := range e.Spans {
		if sp.Label != coordinatorSpan {
			w.procs[sp.Label].encoding = e.RecordSpan(sp)
			continue
		}
		w.coordinatorEncoding = e.RecordSpan(sp)
		if st := w.coordinatorStep; st != nil && st.encoding.Load() == nil {
			// The other worlds that take the same step from the memo
			// replay it too (takeStep).
			r := w.coordinatorEncoding
			st.encoding.CompareAndSwap(nil, &r)
		}
	}
	e.Spans = e.Spans[:0]
}

// topicsEncoding is the encoding of a Topics map (canon.Encoder.Topics,
// written without renaming), kept by the worlds that share the map.
type topicsEncoding struct {
	topics spec.Topics
	buf    []byte
}

// encodeTopics writes the metadata: the encoding the world it was forked
// from kept, when it is of the same map (the world replaces Topics whole,
// never changes it in place) and e does not rename; otherwise it encodes
// it, and a frozen world keeps the encoding for its forks. The encoding of
// a Topics map depends on nothing but the map (no instant, correlation id
// or order value).
func (w *World[M, T, C, P]) encodeTopics(e *canon.Encoder) {
	plain := e.Plain()
	if k := w.topicsEncoding; plain && k != nil && sameTopics(k.topics, w.Topics) {
		e.Buf = append(e.Buf, k.buf...)
		return
	}
	from := len(e.Buf)
	e.Topics(w.Topics)
	if plain && w.frozen {
		w.topicsEncoding = &topicsEncoding{topics: w.Topics, buf: slices.Clone(e.Buf[from:])}
	}
}

// sameTopics reports whether a and b are the same map (not merely equal
// ones), or both empty.
func sameTopics(a, b spec.Topics) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer())
}

// encodeCoordinator writes the coordinator: the encoding a frozen world
// it was forked from recorded, when it still shares that world's
// coordinator (every change of it drops the recording: ownCoordinator)
// and e writes with the same settings; otherwise it encodes it, and a
// frozen world, which never changes again, notes its span for Keep to
// record.
func (w *World[M, T, C, P]) encodeCoordinator(e *canon.Encoder) {
	if e.ReplayKept(&w.coordinatorEncoding) {
		return
	}
	mark := e.Mark()
	w.Coordinator.Encode(e)
	if w.frozen {
		noteSpan(e, mark, coordinatorSpan)
	}
}
