// Package costreport presents what the cost simulator (model/cost)
// measured: the metrics of each result as CSV or JSON for scripts
// (WriteCSV, WriteJSON), the unavailable resources over time of several
// protocols in one picture (UnavailableSVG, WriteUnavailable), the
// ownership timeline of one protocol's run (OwnershipSVG, WriteOwnership),
// and all of it in one self-contained HTML page (WriteHTML).
//
// Every writer checks its results first (Validate) and writes nothing
// when they cannot be drawn; the same results always give the same bytes.
package costreport

import (
	"errors"
	"fmt"

	"github.com/rebalance-ref/rebalance/model/cost"
)

// Validate reports why rs cannot be presented: there are none, or one of
// them ends before it starts, has a sample before its Start or after its
// End, samples that go backwards in time or a negative count, or a
// holding that ends before it begins. A nil error means every writer of
// this package can draw rs.
func Validate(rs []cost.Result) error {
	if len(rs) == 0 {
		return errors.New("costreport: no results")
	}
	for i, r := range rs {
		if err := validate(r); err != nil {
			return fmt.Errorf("costreport: result %d (%s, %s): %w", i, r.Protocol, r.Workload, err)
		}
	}
	return nil
}

// validate checks one result.
func validate(r cost.Result) error {
	if r.End < r.Start {
		return fmt.Errorf("ends at %dms before it starts at %dms", r.End, r.Start)
	}
	for j, s := range r.Unavailable {
		switch {
		case s.At < r.Start || s.At > r.End:
			return fmt.Errorf("sample %d at %dms is outside the run [%dms, %dms]", j, s.At, r.Start, r.End)
		case j > 0 && s.At < r.Unavailable[j-1].At:
			return fmt.Errorf("sample %d at %dms goes back in time from %dms", j, s.At, r.Unavailable[j-1].At)
		case s.Unavailable < 0:
			return fmt.Errorf("sample %d at %dms counts %d unavailable resources", j, s.At, s.Unavailable)
		}
	}
	for j, iv := range r.Ownership {
		if iv.To < iv.From {
			return fmt.Errorf("holding %d of %s by %s ends at %dms before it begins at %dms", j, iv.Resource, iv.Owner, iv.To, iv.From)
		}
	}
	return nil
}
