package node

import (
	"errors"
	"slices"
)

// Subscription returns a member's subscribed topics sorted and without
// duplicates, in a new slice that shares nothing with topics, or an error
// for an empty topic name. An empty subscription is not an error here; a
// family that requires topics says so itself.
func Subscription(topics []string) ([]string, error) {
	if slices.Contains(topics, "") {
		return nil, errors.New("empty topic name in subscription")
	}
	return slices.Clip(slices.Compact(slices.Sorted(slices.Values(topics)))), nil
}
