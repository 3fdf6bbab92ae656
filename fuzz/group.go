package fuzz

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// FormatGroup prints g in the text form ParseGroup reads, one line per
// fact, deterministically (topics, replica racks and members sorted):
//
//	topics a:4 b:2
//	replicas a 0=r0,r1 1=r1
//	member m0 generation=3 topics=a,b owned=a-0,a-1 instance=i1 rack=r0
//	member m1 generation=-1 topics=a
//
// A member line leaves out what is empty: no instance ID, no rack, no
// claims, no subscription. Every counterexample the harness reports is a
// group in this form, so a failure can be pasted into a test (ParseGroup,
// then Judge).
func FormatGroup(g assign.Group) string {
	var b strings.Builder
	b.WriteString("topics")
	for _, t := range g.Topics.Names() {
		fmt.Fprintf(&b, " %s:%d", t, g.Topics[t])
	}
	b.WriteByte('\n')
	for _, t := range slices.Sorted(maps.Keys(g.ReplicaRacks)) {
		parts := g.ReplicaRacks[t]
		var cells []string
		for p, racks := range parts {
			if len(racks) > 0 {
				cells = append(cells, fmt.Sprintf("%d=%s", p, strings.Join(slices.Sorted(slices.Values(racks)), ",")))
			}
		}
		if len(cells) > 0 {
			fmt.Fprintf(&b, "replicas %s %s\n", t, strings.Join(cells, " "))
		}
	}
	members := slices.Clone(g.Members)
	slices.SortFunc(members, byID)
	for _, m := range members {
		fmt.Fprintf(&b, "member %s generation=%d", m.ID, m.Generation)
		if len(m.Topics) > 0 {
			fmt.Fprintf(&b, " topics=%s", strings.Join(m.Topics, ","))
		}
		if len(m.Owned) > 0 {
			names := make([]string, len(m.Owned))
			for i, r := range m.Owned {
				names[i] = r.String()
			}
			fmt.Fprintf(&b, " owned=%s", strings.Join(names, ","))
		}
		if m.InstanceID != "" {
			fmt.Fprintf(&b, " instance=%s", m.InstanceID)
		}
		if m.Rack != "" {
			fmt.Fprintf(&b, " rack=%s", m.Rack)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseGroup reads a group in the form FormatGroup prints. Blank lines and
// lines starting with # are ignored. It returns an error naming the line
// for anything it cannot read, and assign.ValidateGroup's error for a group
// no assignor accepts (members out of order are sorted first, so a
// hand-written group need not list them in order).
func ParseGroup(text string) (assign.Group, error) {
	g := assign.Group{Topics: spec.Topics{}}
	sawTopics := false
	for n, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		fail := func(format string, args ...any) (assign.Group, error) {
			return assign.Group{}, fmt.Errorf("fuzz: group line %d: %s", n+1, fmt.Sprintf(format, args...))
		}
		switch fields[0] {
		case "topics":
			if sawTopics {
				return fail("a second topics line")
			}
			sawTopics = true
			for _, f := range fields[1:] {
				i := strings.LastIndexByte(f, ':')
				if i <= 0 {
					return fail("topic %q: want name:partitions", f)
				}
				c, err := strconv.ParseInt(f[i+1:], 10, 32)
				if err != nil || c < 0 {
					return fail("topic %q: partitions must be a number from 0", f)
				}
				if _, dup := g.Topics[f[:i]]; dup {
					return fail("topic %q listed twice", f[:i])
				}
				g.Topics[f[:i]] = int32(c)
			}
		case "replicas":
			if len(fields) < 2 {
				return fail("replicas: want replicas TOPIC P=rack,... ...")
			}
			t := fields[1]
			count, ok := g.Topics[t]
			if !ok {
				return fail("replicas of %q: not a topic of the topics line (it must come first)", t)
			}
			if g.ReplicaRacks == nil {
				g.ReplicaRacks = map[string][][]string{}
			}
			if _, dup := g.ReplicaRacks[t]; dup {
				return fail("replicas of %q given twice", t)
			}
			parts := make([][]string, count)
			for _, f := range fields[2:] {
				k, v, ok := strings.Cut(f, "=")
				p, err := strconv.ParseInt(k, 10, 32)
				if !ok || err != nil || p < 0 || p >= int64(count) {
					return fail("replicas %q: want P=rack,... with P a partition of %s", f, t)
				}
				if parts[p] != nil {
					return fail("replicas of %s-%d given twice", t, p)
				}
				parts[p] = strings.Split(v, ",")
			}
			g.ReplicaRacks[t] = parts
		case "member":
			m, err := parseMember(fields[1:])
			if err != nil {
				return fail("%v", err)
			}
			g.Members = append(g.Members, m)
		default:
			return fail("%q: want topics, replicas or member", fields[0])
		}
	}
	if !sawTopics {
		return assign.Group{}, errors.New("fuzz: group: no topics line")
	}
	slices.SortStableFunc(g.Members, byID)
	if err := assign.ValidateGroup(g); err != nil {
		return assign.Group{}, fmt.Errorf("fuzz: group: %w", err)
	}
	return g, nil
}

func parseMember(fields []string) (assign.Member, error) {
	if len(fields) == 0 || strings.Contains(fields[0], "=") {
		return assign.Member{}, errors.New("member: want member ID followed by key=value fields")
	}
	m := assign.Member{ID: spec.MemberID(fields[0]), Generation: spec.NoGeneration}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return assign.Member{}, fmt.Errorf("member %s: %q: want key=value", m.ID, f)
		}
		if seen[k] {
			return assign.Member{}, fmt.Errorf("member %s: %s given twice", m.ID, k)
		}
		seen[k] = true
		switch k {
		case "generation":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return assign.Member{}, fmt.Errorf("member %s: generation %q: %v", m.ID, v, err)
			}
			m.Generation = spec.Generation(n)
		case "topics":
			m.Topics = strings.Split(v, ",")
		case "owned":
			owned, err := spec.ParseSet("{" + v + "}")
			if err != nil {
				return assign.Member{}, fmt.Errorf("member %s: owned: %v", m.ID, err)
			}
			m.Owned = owned
		case "instance":
			m.InstanceID = v
		case "rack":
			m.Rack = v
		default:
			return assign.Member{}, fmt.Errorf("member %s: unknown key %q (want generation, topics, owned, instance, rack)", m.ID, k)
		}
	}
	return m, nil
}
