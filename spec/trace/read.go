package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Limits bound what Read takes in, so that no input can exhaust memory
// unannounced. The zero value means the defaults.
type Limits struct {
	// MaxLine is the longest line in bytes (default 1 MiB).
	MaxLine int
	// MaxEvents is the most events (default 5,000,000).
	MaxEvents int
	// MaxBytes is the most bytes (default 512 MiB: about five million
	// events, which take some 3 GiB to judge).
	MaxBytes int64
}

// The default limits.
const (
	DefaultMaxLine   = 1 << 20
	DefaultMaxEvents = 5_000_000
	DefaultMaxBytes  = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultMaxLine
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// LineError is what is wrong with one line of a trace.
type LineError struct {
	Line int
	Err  error
}

// Error prints "line N: what is wrong".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// Read reads a whole trace and checks it: the header first, with the
// format and version this package knows; then one JSON object per line,
// with no unknown field and no field its kind does not carry, times that
// never go backwards, callbacks called no later than they return,
// resources that parse and are distinct, topics that never shrink,
// generations not below -1, joined and removed only in a trace whose
// header claims the coordinator, a removed member the coordinator
// counted, no event of a crashed process before it restarts, and
// delivery events that make sense: offsets and counts not negative, a
// processed record of a partition that exists (when topic events say
// what does), a commit with its answer, refusing one by one only
// partitions it committed. The first
// thing wrong is returned as a *LineError, and no trace: a trace is judged
// whole or not at all.
func Read(r io.Reader, lim Limits) (*Trace, error) {
	lim = lim.withDefaults()
	tr := &Trace{}
	if n, ok, err := countLines(r, lim.MaxBytes); err != nil {
		return nil, &LineError{1, err}
	} else if ok {
		// Grown once: a million events copied again and again as the
		// slice grows cost more than reading them.
		tr.Events = make([]Event, 0, min(n, lim.MaxEvents))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	st := newState()
	fast := newFastDecoder()
	var read int64
	for n := 1; ; n++ {
		line, took, err := readLine(br, lim.MaxLine)
		if read += int64(took); read > lim.MaxBytes {
			return nil, &LineError{n, fmt.Errorf("the trace goes past %d bytes (the reader's limit)", lim.MaxBytes)}
		}
		if errors.Is(err, io.EOF) && line == nil {
			if n == 1 {
				return nil, &LineError{1, errors.New("empty trace: want a header line")}
			}
			if len(tr.Events) == 0 {
				tr.Events = nil // as from a reader that cannot seek: no events is nil
			}
			return tr, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &LineError{n, err}
		}
		if n == 1 {
			if tr.Header, err = readHeader(line); err != nil {
				return nil, &LineError{1, err}
			}
			st.coordinator, st.unit = tr.Header.Coordinator, Units[tr.Header.Unit]
			continue
		}
		if len(tr.Events) == lim.MaxEvents {
			return nil, &LineError{n, fmt.Errorf("more than %d events (the reader's limit)", lim.MaxEvents)}
		}
		e, err := decodeEvent(fast, line)
		if err == nil {
			e.Line = n
			err = e.parse()
		}
		if err == nil {
			err = st.accept(e)
		}
		if err != nil {
			return nil, &LineError{n, err}
		}
		tr.Events = append(tr.Events, e)
	}
}

// countLines counts the lines left in r when r can seek back (a file, a
// bytes.Reader), and leaves it where it was; false when r cannot seek or
// holds more than max bytes (Read refuses it at the limit), an error when
// it cannot seek back.
func countLines(r io.Reader, max int64) (int, bool, error) {
	s, ok := r.(io.ReadSeeker)
	if !ok {
		return 0, false, nil
	}
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
			return 0, false, nil
		}
	}
	at, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false, nil
	}
	n, total := 0, int64(0)
	buf := make([]byte, 256<<10)
	for total <= max {
		k, err := s.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		total += int64(k)
		if err != nil {
			break
		}
	}
	if _, err := s.Seek(at, io.SeekStart); err != nil {
		return 0, false, fmt.Errorf("counting the lines: cannot seek back: %v", err)
	}
	return n, total <= max, nil
}

// readLine returns the next line without its newline and how many bytes
// it took, newline included; io.EOF with a nil line at the end. A line
// longer than max is an error, read no further. The line is good until
// the next call.
func readLine(br *bufio.Reader, max int) ([]byte, int, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if line == nil && err == nil && len(chunk) <= max+1 {
			return chunk[:len(chunk)-1], len(chunk), nil // the usual case, not copied
		}
		line = append(line, chunk...)
		if len(line) > max+1 || (len(line) > max && !bytes.HasSuffix(line, []byte("\n"))) {
			return nil, len(line), fmt.Errorf("longer than %d bytes", max)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], len(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, 0, io.EOF
			}
			return line, len(line), nil
		default:
			return nil, len(line), err
		}
	}
}

// strict decodes one JSON object from line into v, refusing unknown
// fields and anything after the object.
func strict(line []byte, v any) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return errors.New("empty line")
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("not a trace event: %v", err)
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func readHeader(line []byte) (Header, error) {
	var h Header
	if err := strict(line, &h); err != nil {
		return h, fmt.Errorf("header: %v", err)
	}
	return h, h.validate()
}

// validate reports what is wrong with h.
func (h Header) validate() error {
	switch {
	case h.Format != Format:
		return fmt.Errorf("header: format %q, want %q", h.Format, Format)
	case h.Version != Version:
		return fmt.Errorf("header: version %d; this reader knows version %d", h.Version, Version)
	case h.Protocol != "" && !slices.Contains(Protocols, h.Protocol):
		return fmt.Errorf("header: protocol %q, want one of %v", h.Protocol, Protocols)
	case Units[h.Unit] == 0:
		return fmt.Errorf("header: unit %q, want ns, us, ms or s", h.Unit)
	case h.MaxRounds < 0:
		return fmt.Errorf("header: max_rounds %d is negative", h.MaxRounds)
	}
	return nil
}

// Protocols lists the protocols a header may name.
var Protocols = []string{"eager", "cooperative", "deferred", "incremental", "nextgen"}

// decodeEvent decodes one event line, by fast when it can, and checks
// its fields against its kind.
func decodeEvent(fast *fastDecoder, line []byte) (Event, error) {
	e, ok := fast.decode(line)
	if !ok {
		e = Event{}
		if err := strict(line, &e); err != nil {
			return e, err
		}
	}
	// An empty list is no list (see Event): `"topics":[]` reads as no
	// topics, as Write would write it.
	if len(e.Topics) == 0 {
		e.Topics = nil
	}
	if len(e.Resources) == 0 {
		e.Resources = nil
	}
	if len(e.Refused) == 0 {
		e.Refused = nil
	}
	if len(e.Offsets) == 0 {
		e.Offsets = nil
	}
	if what := e.shape(); what != "" {
		return e, errors.New(what)
	}
	return e, nil
}

// state is what the reader remembers to judge the next line.
type state struct {
	coordinator bool
	unit        int64 // nanoseconds per unit of time
	last        int64
	lastLine    int
	crashed     map[string]int // process → the line of its crash, while down
	counted     map[string]bool
	topics      map[string]int32
}

func newState() *state {
	return &state{unit: 1, crashed: map[string]int{}, counted: map[string]bool{}, topics: map[string]int32{}}
}

// accept checks e against everything before it and records it.
func (s *state) accept(e Event) error {
	switch {
	case e.T < 0:
		return fmt.Errorf("time %d is negative", e.T)
	case e.T > math.MaxInt64/s.unit:
		return fmt.Errorf("time %d does not fit in nanoseconds", e.T)
	case e.T < s.last:
		return fmt.Errorf("time %d goes backwards (line %d was at %d)", e.T, s.lastLine, s.last)
	case e.Call != nil && *e.Call > e.T && e.Kind == Commit:
		return fmt.Errorf("commit sent at %d after it was answered at %d", *e.Call, e.T)
	case e.Call != nil && *e.Call > e.T:
		return fmt.Errorf("%s callback called at %d after it returned at %d", e.Kind, *e.Call, e.T)
	case e.Call != nil && *e.Call < 0:
		return fmt.Errorf("call time %d is negative", *e.Call)
	case e.Generation != nil && *e.Generation < int32(spec.NoGeneration):
		return fmt.Errorf("generation %d is below %d", *e.Generation, spec.NoGeneration)
	case e.Kind == GenerationReached && *e.Generation < 0:
		return fmt.Errorf("a generation event needs a generation of 0 or more, not %d", *e.Generation)
	case (e.Kind == Joined || e.Kind == Removed) && !s.coordinator:
		return fmt.Errorf("a %s event in a trace whose header does not claim the coordinator (\"coordinator\": true)", e.Kind)
	case e.API != "" && !slices.Contains(APIs, e.API):
		return fmt.Errorf("unknown group API %q (known: %v)", e.API, APIs)
	case e.Offset != nil && *e.Offset < 0:
		return fmt.Errorf("offset %d is negative", *e.Offset)
	case e.Count != nil && *e.Count < 1:
		return fmt.Errorf("count %d: want 1 or more records", *e.Count)
	case e.Offset != nil && e.Count != nil && *e.Offset > math.MaxInt64-*e.Count:
		return fmt.Errorf("records %d to %d+%d go past the largest offset", *e.Offset, *e.Offset, *e.Count)
	case len(e.Refused) > 0 && *e.Error != 0:
		return fmt.Errorf("a commit refused whole (error %d) refuses no partition one by one", *e.Error)
	}
	if err := distinct("topic", e.Topics); err != nil {
		return err
	}
	if at, down := s.crashed[e.Process]; down && e.Kind != Restart {
		return fmt.Errorf("process %q crashed at line %d and has not restarted", e.Process, at)
	}
	switch e.Kind {
	case Crash:
		s.crashed[e.Process] = e.Line
	case Restart:
		delete(s.crashed, e.Process)
	case Joined:
		s.counted[e.Member] = true
	case Removed:
		if !s.counted[e.Member] {
			return fmt.Errorf("removed: member %q is not counted by the coordinator (no joined event since it was last removed)", e.Member)
		}
		s.counted[e.Member] = false
	case Processed:
		if was, ok := s.topics[e.res.Topic]; len(s.topics) > 0 && (!ok || e.res.Partition >= was) {
			return fmt.Errorf("processed: %s is not a partition of the topics declared so far", e.res)
		}
	case Topic:
		if e.Partitions < 1 {
			return fmt.Errorf("topic %q with %d partitions: want at least 1", e.Topic, e.Partitions)
		}
		if was := s.topics[e.Topic]; e.Partitions < was {
			return fmt.Errorf("topic %q shrinks from %d to %d partitions (topics never shrink)", e.Topic, was, e.Partitions)
		}
		s.topics[e.Topic] = e.Partitions
	}
	s.last, s.lastLine = e.T, e.Line
	return nil
}

// distinct reports a name listed twice or empty.
func distinct(what string, names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("an empty %s name", what)
		}
		if seen[n] {
			return fmt.Errorf("%s %q listed twice", what, n)
		}
		seen[n] = true
	}
	return nil
}

// parse parses e's resources (Resources, Resource, the partitions of
// Offsets, Refused) into its sets: each must parse, a partition where
// only a partition will do, and none be listed twice; the offsets of a
// commit are 0 or more, and what it refuses is among them.
func (e *Event) parse() error {
	var err error
	if e.set, err = e.ResourceSet(); err != nil {
		return err
	}
	if e.Resource != "" {
		if e.res, err = partition(e.Resource); err != nil {
			return err
		}
	}
	e.offsets, e.refused = nil, nil
	if len(e.Offsets) > 0 {
		names := slices.Sorted(maps.Keys(e.Offsets))
		rs := make([]spec.Resource, 0, len(names))
		for _, k := range names {
			r, err := partition(k)
			if err != nil {
				return err
			}
			if v := e.Offsets[k]; v < 0 {
				return fmt.Errorf("offset %d of %s is negative", v, k)
			}
			rs = append(rs, r)
		}
		if e.offsets = spec.NewSet(rs...); e.offsets.Len() != len(rs) {
			return fmt.Errorf("a partition is listed twice in offsets %v", names)
		}
	}
	if len(e.Refused) > 0 {
		rs := make([]spec.Resource, 0, len(e.Refused))
		for _, k := range e.Refused {
			r, err := partition(k)
			if err != nil {
				return err
			}
			if !e.offsets.Contains(r) {
				return fmt.Errorf("refused: %s is not among the offsets committed", k)
			}
			rs = append(rs, r)
		}
		if e.refused = spec.NewSet(rs...); e.refused.Len() != len(rs) {
			return fmt.Errorf("a partition is listed twice in refused %v", e.Refused)
		}
	}
	return nil
}

// partition parses s as a partition, "topic-N".
func partition(s string) (spec.Resource, error) {
	r, err := spec.ParseResource(s)
	if err == nil && r.IsConnector() {
		err = fmt.Errorf("resource %q: want a partition (topic-N), not a connector", s)
	}
	return r, err
}

// ResourceSet parses e's resources into a set; it is an error for one not
// to parse or to be listed twice.
func (e Event) ResourceSet() (spec.Set, error) {
	rs := make([]spec.Resource, 0, len(e.Resources))
	for _, s := range e.Resources {
		r, err := spec.ParseResource(s)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	set := spec.NewSet(rs...)
	if set.Len() != len(rs) {
		return nil, fmt.Errorf("a resource is listed twice in %v", e.Resources)
	}
	return set, nil
}
