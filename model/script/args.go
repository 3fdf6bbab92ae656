// Package script holds what the scenario languages of the closed worlds
// share: the argument form of a command (key=value, key=(v1,v2) or a bare
// word) and helpers that read arguments with clear errors. Each world's
// Script type gives the verbs meaning.
package script

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Arg is one argument of a command: key=value, key=(v1,v2) or a bare word
// (Key set, no Vals).
type Arg struct {
	Key  string
	Vals []string
}

// Has reports whether an argument with key is present.
func Has(args []Arg, key string) bool {
	return slices.ContainsFunc(args, func(a Arg) bool { return a.Key == key })
}

// Vals returns the values of the argument with key, nil if absent.
func Vals(args []Arg, key string) []string {
	for _, a := range args {
		if a.Key == key {
			return a.Vals
		}
	}
	return nil
}

// Val returns the first value of the argument with key, "" if absent.
func Val(args []Arg, key string) string {
	if v := Vals(args, key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// Name returns the bare word that must come first (a member name).
func Name(args []Arg, cmd string) (string, error) {
	if len(args) == 0 || len(args[0].Vals) != 0 {
		return "", fmt.Errorf("%s: want a member name first", cmd)
	}
	return args[0].Key, nil
}

// Int returns the i-th argument as a number given as a bare word.
func Int(args []Arg, i int, cmd string) (int64, error) {
	if len(args) <= i || len(args[i].Vals) != 0 {
		return 0, fmt.Errorf("%s: want a number", cmd)
	}
	n, err := strconv.ParseInt(args[i].Key, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", cmd, args[i].Key)
	}
	return n, nil
}

// NonNegative returns the value of key as a non-negative number, 0 when
// absent.
func NonNegative(args []Arg, key string) (int64, error) {
	v := Val(args, key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative number", key, v)
	}
	return n, nil
}

// Millis returns the value of key as a non-negative duration or time in
// milliseconds, 0 when absent.
func Millis(args []Arg, key string) (node.Millis, error) {
	n, err := NonNegative(args, key)
	return node.Millis(n), err
}

// ParseLine splits one command line of a scenario file into its verb and
// arguments, in the syntax the scenario files use: words separated by
// spaces, each a bare word, key=value or key=(v1,v2,...). An argument
// with an empty key ("=v") or a key with unbalanced parentheses is an
// error, and so is key=(...)(...), which is not one list. key=() gives
// key with no values, as the bare word key does.
func ParseLine(line string) (string, []Arg, error) {
	var words []string
	depth := 0
	start := -1
	for i, r := range line {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return "", nil, fmt.Errorf("%q: unbalanced )", line)
			}
		}
		if r == ' ' && depth == 0 {
			if start >= 0 {
				words = append(words, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if depth != 0 {
		return "", nil, fmt.Errorf("%q: unbalanced (", line)
	}
	if start >= 0 {
		words = append(words, line[start:])
	}
	if len(words) == 0 {
		return "", nil, fmt.Errorf("empty command")
	}
	var args []Arg
	for _, w := range words[1:] {
		key, val, ok := strings.Cut(w, "=")
		if !ok {
			args = append(args, Arg{Key: w})
			continue
		}
		if key == "" || !balanced(key) {
			return "", nil, fmt.Errorf("%q: argument %q: want a key before =, without unbalanced parentheses", line, w)
		}
		if strings.HasPrefix(val, "(") && strings.HasSuffix(val, ")") {
			inner := val[1 : len(val)-1]
			if !balanced(inner) {
				return "", nil, fmt.Errorf("%q: argument %q: the parentheses do not enclose the whole list", line, w)
			}
			var vals []string
			if inner != "" {
				vals = strings.Split(inner, ",")
			}
			args = append(args, Arg{Key: key, Vals: vals})
			continue
		}
		args = append(args, Arg{Key: key, Vals: []string{val}})
	}
	return words[0], args, nil
}

// balanced reports whether every ")" in s closes a "(" before it.
func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// RunLine parses one command line and runs it with run, returning run's
// error (the output is for scenario files; a caller that builds a state
// from commands only needs to know they ran).
func RunLine(run func(cmd string, args []Arg) (string, error), line string) error {
	cmd, args, err := ParseLine(line)
	if err != nil {
		return err
	}
	_, err = run(cmd, args)
	return err
}

// Topics reads the topics=(name:partitions,...) argument of a group
// command as a topic universe.
func Topics(args []Arg, cmd string) (spec.Topics, error) {
	topics := spec.Topics{}
	for _, t := range Vals(args, "topics") {
		name, count, ok := strings.Cut(t, ":")
		n, err := strconv.ParseInt(count, 10, 32)
		if !ok || err != nil || n < 0 || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s: topic %q: want name:partitions", cmd, t)
		}
		topics[name] = int32(n)
	}
	return topics, nil
}

// Connectors adds to topics the Kafka Connect connectors of the
// connectors=(name:tasks,...) argument of a group command: each is a
// resource name/connector plus its tasks name-0 .. name-(tasks-1)
// (spec.Topics.AddConnector). A connector may not share its name with a
// topic, and needs at least one task.
func Connectors(args []Arg, cmd string, topics spec.Topics) error {
	for _, c := range Vals(args, "connectors") {
		name, count, ok := strings.Cut(c, ":")
		n, err := strconv.ParseInt(count, 10, 32)
		if !ok || err != nil || n < 1 || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("%s: connector %q: want name:tasks with at least one task", cmd, c)
		}
		if _, dup := topics[name]; dup {
			return fmt.Errorf("%s: connector %q: %s is already a topic or connector", cmd, c, name)
		}
		topics.AddConnector(name, int32(n))
	}
	return nil
}

// Durations reads the optional durations of args into their fields: each
// key names the Millis its value goes to (Millis; an absent key leaves it
// as it is). The first malformed value is the error.
func Durations(args []Arg, fields map[string]*node.Millis) error {
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		if !Has(args, key) {
			continue
		}
		v, err := Millis(args, key)
		if err != nil {
			return err
		}
		*fields[key] = v
	}
	return nil
}
