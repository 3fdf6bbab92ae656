package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzMemoryLimit: --max-memory's parser never panics, and what it
// accepts is 0 (no limit) or a size of at least 1 MiB: never negative,
// whatever the number (overflowing, infinite, not a number).
func FuzzMemoryLimit(f *testing.F) {
	for _, s := range []string{"", "0", "2GiB", "500MiB", "1.5 GB", "1KiB", "3TB", "-1GiB", "1e30TB", "InfGiB", "NaNMiB", "12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, flag string) {
		n, err := memoryLimit(flag)
		if err != nil {
			return
		}
		if flag != "" && flag != "0" && n < 1<<20 {
			t.Fatalf("--max-memory %q: accepted as %d bytes", flag, n)
		}
	})
}

// FuzzParseTopics: --topics's parser never panics; what it accepts has
// named topics with at least one partition, and printed back as
// name:partitions,... it parses to the same topics.
func FuzzParseTopics(f *testing.F) {
	for _, s := range []string{"orders:3", "a:1, b:2", "", " ", "a:0", "a:1,a:2", "a", ":3", "a:2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, flag string) {
		topics, err := parseTopics(flag)
		if err != nil {
			return
		}
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(topics)) {
			if name == "" || topics[name] <= 0 {
				t.Fatalf("--topics %q: topic %q with %d partitions", flag, name, topics[name])
			}
			parts = append(parts, fmt.Sprintf("%s:%d", name, topics[name]))
		}
		again, err := parseTopics(strings.Join(parts, ","))
		if err != nil || !maps.Equal(again, topics) {
			t.Fatalf("--topics %q parsed as %v; printed back it parses as %v, %v", flag, topics, again, err)
		}
	})
}
