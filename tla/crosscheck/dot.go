package crosscheck

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// ReadDot reads the state graph TLC writes with -dump dot,actionlabels:
// node lines `id [label="<state>",...]` (an initial state has style =
// filled) and edge lines `id -> id [label="<action>(args)",...]`. Each
// state is parsed and kept as its canonical text; each action is kept by
// its name. It returns an error naming the line of anything it cannot
// read: an edge to an undeclared node, a label that is not a state, a
// line it does not know.
func ReadDot(r io.Reader) (*Graph, error) {
	g := NewGraph()
	ids := map[string]string{} // node id -> canonical state
	type pending struct {
		from, action, to string
		line             int
	}
	var edges []pending
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "", line == "}", line == "{", strings.HasPrefix(line, "strict digraph"),
			strings.HasPrefix(line, "digraph"), strings.HasPrefix(line, "node "), strings.HasPrefix(line, "nodesep"),
			strings.HasPrefix(line, "subgraph"), strings.HasPrefix(line, "color="), strings.HasPrefix(line, "{rank"):
			continue
		}
		head, attrs, ok := strings.Cut(line, " [")
		if !ok {
			return nil, fmt.Errorf("dot line %d: unrecognised line %q", n, clip(line))
		}
		label, err := attribute(attrs, "label")
		if err != nil {
			return nil, fmt.Errorf("dot line %d: %v", n, err)
		}
		if from, to, isEdge := strings.Cut(head, " -> "); isEdge {
			action, _, _ := strings.Cut(label, "(")
			action = strings.TrimSpace(action)
			if action == "" || strings.ContainsFunc(action, unicode.IsSpace) {
				// An action is an operator name; a graph file (WriteGraph)
				// could not hold anything else.
				return nil, fmt.Errorf("dot line %d: edge label %q: want an action name", n, clip(label))
			}
			edges = append(edges, pending{strings.TrimSpace(from), action, strings.TrimSpace(to), n})
			continue
		}
		id := strings.TrimSpace(head)
		st, err := tlaval.ParseState(label)
		if err != nil {
			return nil, fmt.Errorf("dot line %d: state %s: %v", n, id, err)
		}
		text := st.String()
		if prev, ok := ids[id]; ok && prev != text {
			return nil, fmt.Errorf("dot line %d: node %s declared twice with different states", n, id)
		}
		ids[id] = text
		g.AddState(text, strings.Contains(attrs, "style = filled") || strings.Contains(attrs, "style=filled"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dot: %v", err)
	}
	for _, e := range edges {
		from, ok1 := ids[e.from]
		to, ok2 := ids[e.to]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("dot line %d: edge %s -> %s to an undeclared node", e.line, e.from, e.to)
		}
		g.AddEdge(from, e.action, to)
	}
	if len(g.Init) == 0 && len(g.States) > 0 {
		return nil, fmt.Errorf("dot: no initial state (no node has style = filled)")
	}
	return g, nil
}

// attribute returns the unescaped value of the quoted attribute name in a
// dot attribute list.
func attribute(attrs, name string) (string, error) {
	key := name + `="`
	i := strings.Index(attrs, key)
	if i < 0 || (i > 0 && attrs[i-1] != ',' && attrs[i-1] != ' ' && attrs[i-1] != '[') {
		return "", fmt.Errorf("no %s attribute", name)
	}
	var b strings.Builder
	for j := i + len(key); j < len(attrs); j++ {
		switch c := attrs[j]; c {
		case '"':
			return b.String(), nil
		case '\\':
			if j+1 == len(attrs) {
				return "", fmt.Errorf("%s attribute ends in a lone backslash", name)
			}
			j++
			if attrs[j] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(attrs[j])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%s attribute is not terminated", name)
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
