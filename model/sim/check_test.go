package sim

import (
	"reflect"
	"testing"
)

func TestInterchangeable(t *testing.T) {
	got := Interchangeable([]string{"A", "B", "C", "D", "E"}, []string{"x", "y", "x", "z", "y"})
	want := [][]string{{"A", "C"}, {"B", "E"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Interchangeable([]string{"A", "B"}, []string{"x", "y"}); got != nil {
		t.Errorf("distinct keys grouped: %v", got)
	}
}
