package crosscheck

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Golden is what tla/golden/<config>.json keeps of one TLC run: where it
// came from, what TLC reported and the summary of the state graph it
// dumped. Everything but RunSeconds and StatesPerSecond (and TLCVersion,
// with another build of TLC) is reproduced exactly by running tla/tlc.sh
// again on the same specs.
type Golden struct {
	// Config is the configuration's name (tla/configs/<Config>.cfg) and
	// Module the TLA+ module TLC checked.
	Config string `json:"config"`
	Module string `json:"module"`
	// TLCVersion is TLC's version line, as it printed it.
	TLCVersion string `json:"tlc_version"`
	// Workers is the number of TLC workers.
	Workers int `json:"workers"`
	// ConfigSHA256 and SpecSHA256 identify the configuration file and the
	// family's .tla files (SpecDigest) the run checked; the cross-check
	// refuses a golden file whose specs have changed since.
	ConfigSHA256 string `json:"config_sha256"`
	SpecSHA256   string `json:"spec_sha256"`
	// Checked says what TLC checked and found: it is "no error" for every
	// committed golden file (invariants and temporal properties hold).
	Checked    string   `json:"checked"`
	Invariants []string `json:"invariants"`
	Properties []string `json:"properties"`
	// TLCDistinct, TLCGenerated and TLCDepth are TLC's own counts: its
	// distinct states (equal to Summary.States), the states it generated
	// (successors counted with repeats) and its search depth (at least
	// Summary.Diameter: with several workers TLC's search is not strictly
	// breadth-first, and the depth it reports can be one more).
	TLCDistinct  int `json:"tlc_distinct_states"`
	TLCGenerated int `json:"tlc_states_generated"`
	TLCDepth     int `json:"tlc_depth"`
	Summary
	// RunSeconds is TLC's wall-clock time, JVM start included, and
	// StatesPerSecond TLCDistinct / RunSeconds.
	RunSeconds      float64 `json:"run_seconds"`
	StatesPerSecond float64 `json:"states_per_second"`
	// Graph names the file beside this one that holds the whole graph
	// (WriteGraph), "" when the graph was too large to commit.
	Graph string `json:"graph,omitempty"`
}

// ReadGolden reads a golden file.
func ReadGolden(path string) (Golden, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Golden{}, err
	}
	var g Golden
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return Golden{}, fmt.Errorf("%s: %v", path, err)
	}
	if g.Config == "" || g.StatesDigest == "" || g.TransitionsDigest == "" {
		return Golden{}, fmt.Errorf("%s: no config or digests", path)
	}
	return g, nil
}

// WriteGolden writes g as indented JSON.
func WriteGolden(path string, g Golden) error {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// specModules are the .tla files that make up each family's specs, by
// name: the spec and its TLC harness, in the order their digest reads
// them. Naming them (rather than globbing the directory) keeps out
// anything else that lands beside them, such as the trace-explorer specs
// (<Module>_TTrace_<time>.tla and .bin) TLC writes after finding an
// error when run without -noGenerateSpecTE: those must not make every
// golden file of the family read as stale.
var specModules = map[string][]string{
	"classic-": {"Classic.tla", "MCClassic.tla"},
	"nextgen-": {"MCNextGen.tla", "NextGen.tla"},
}

// SpecFiles returns the paths in dir of the .tla files that make up the
// family a configuration belongs to (specModules): Classic.tla and
// MCClassic.tla for a classic-* configuration, MCNextGen.tla and
// NextGen.tla for a nextgen-* one. Other files in dir play no part.
func SpecFiles(dir, config string) ([]string, error) {
	for prefix, names := range specModules {
		if !strings.HasPrefix(config, prefix) {
			continue
		}
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out, nil
	}
	return nil, fmt.Errorf("config %q: want a name starting classic- or nextgen-", config)
}

// FileDigest is the SHA-256 of the named files: each file's base name, a
// newline, its length, a newline and its bytes, in the order given.
func FileDigest(files ...string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\n%d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteGraph writes g gzipped, deterministically: "states N" and the
// sorted state texts one per line, "init K" and the initial states'
// indexes, "edges M" and one "from to action" line of indexes per
// transition, sorted.
func WriteGraph(w io.Writer, g *Graph) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	states := sortedKeys(g.States)
	index := make(map[string]int, len(states))
	fmt.Fprintf(bw, "states %d\n", len(states))
	for i, s := range states {
		index[s] = i
		bw.WriteString(s)
		bw.WriteByte('\n')
	}
	fmt.Fprintf(bw, "init %d\n", len(g.Init))
	for _, s := range sortedKeys(g.Init) {
		fmt.Fprintf(bw, "%d\n", index[s])
	}
	type ie struct {
		from, to int
		action   string
	}
	edges := make([]ie, 0, len(g.Edges))
	for e := range g.Edges {
		edges = append(edges, ie{index[e.From], index[e.To], e.Action})
	}
	slices.SortFunc(edges, func(a, b ie) int {
		if a.from != b.from {
			return a.from - b.from
		}
		if a.to != b.to {
			return a.to - b.to
		}
		return strings.Compare(a.action, b.action)
	})
	fmt.Fprintf(bw, "edges %d\n", len(edges))
	for _, e := range edges {
		fmt.Fprintf(bw, "%d %d %s\n", e.from, e.to, e.action)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// ReadGraph reads a graph written by WriteGraph, with an error naming the
// line of anything malformed.
func ReadGraph(r io.Reader) (*Graph, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("graph: %v", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	next := func() (string, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return "", fmt.Errorf("graph line %d: %v", line+1, err)
			}
			return "", fmt.Errorf("graph line %d: unexpected end", line+1)
		}
		line++
		return sc.Text(), nil
	}
	count := func(word string) (int, error) {
		l, err := next()
		if err != nil {
			return 0, err
		}
		v, ok := strings.CutPrefix(l, word+" ")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return 0, fmt.Errorf("graph line %d: want %q and a count, got %q", line, word, clip(l))
		}
		return n, nil
	}
	g := NewGraph()
	n, err := count("states")
	if err != nil {
		return nil, err
	}
	// n is only a claim until its lines are read: do not allocate it up
	// front ("states 9999999999999" would not fit in memory).
	states := make([]string, 0, min(n, 1<<16))
	for range n {
		s, err := next()
		if err != nil {
			return nil, err
		}
		states = append(states, s)
		g.AddState(s, false)
	}
	idx := func(s string) (int, error) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= n {
			return 0, fmt.Errorf("graph line %d: %q is not a state index below %d", line, s, n)
		}
		return i, nil
	}
	k, err := count("init")
	if err != nil {
		return nil, err
	}
	for range k {
		l, err := next()
		if err != nil {
			return nil, err
		}
		i, err := idx(l)
		if err != nil {
			return nil, err
		}
		g.Init[states[i]] = true
	}
	m, err := count("edges")
	if err != nil {
		return nil, err
	}
	for range m {
		l, err := next()
		if err != nil {
			return nil, err
		}
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf("graph line %d: want \"from to action\", got %q", line, clip(l))
		}
		from, err := idx(f[0])
		if err != nil {
			return nil, err
		}
		to, err := idx(f[1])
		if err != nil {
			return nil, err
		}
		g.AddEdge(states[from], f[2], states[to])
	}
	if sc.Scan() {
		return nil, fmt.Errorf("graph line %d: unexpected text after the last edge", line+1)
	}
	return g, nil
}
