package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Recorder writes a trace as it happens. It checks every event as Read
// would, so that what it writes always reads back, and refuses an event
// that would make the trace unreadable (with the error Read would give,
// and without writing it). It is safe for concurrent use: a Kafka client
// calls its rebalance callbacks from its own goroutines.
type Recorder struct {
	mu   sync.Mutex
	w    io.Writer
	now  func() int64
	st   *state
	line int
	err  error // the first write error; every later Record returns it
}

// NewRecorder writes h (Format and Version filled in) to w and returns a
// recorder for the events. With a clock now, Record stamps each event's
// T with now() under the recorder's lock, so that the times of events
// recorded from many goroutines never go backwards; with nil, each event
// brings its own T.
func NewRecorder(w io.Writer, h Header, now func() int64) (*Recorder, error) {
	h.Format, h.Version = Format, Version
	r := &Recorder{w: w, now: now, st: newState()}
	if err := h.validate(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r.st.coordinator, r.st.unit = h.Coordinator, Units[h.Unit]
	if err := r.writeLine(h); err != nil {
		return nil, err
	}
	return r, nil
}

// Record checks e and appends it to the trace. It returns a *LineError
// for an event Read would refuse (nothing is written), and the first
// write error from then on.
func (r *Recorder) Record(e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.now != nil {
		e.T = r.now()
	}
	e.Line = r.line + 1
	var err error
	if what := e.shape(); what != "" {
		err = fmt.Errorf("%s", what)
	} else if err = e.parse(); err == nil {
		err = r.st.accept(e)
	}
	if err != nil {
		return &LineError{e.Line, err}
	}
	return r.writeLine(e)
}

func (r *Recorder) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := r.w.Write(append(b, '\n')); err != nil {
		r.err = fmt.Errorf("trace: write line %d: %w", r.line+1, err)
		return r.err
	}
	r.line++
	return nil
}

// Write writes t to w as Read reads it (the header, then one event per
// line). It does not check t.
func Write(w io.Writer, t *Trace) error {
	h := t.Header
	h.Format, h.Version = Format, Version
	enc := json.NewEncoder(w)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, e := range t.Events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
