package impl

import (
	"errors"
	"fmt"
	"time"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// ErrAssignorTimeout is wrapped by the error a BoundedAssignor returns for
// a call that took too long.
var ErrAssignorTimeout = errors.New("impl: the assignor did not return in time")

// BoundedAssignor returns a with each Assign call bounded by limit: a call
// that has not returned by then returns an error wrapping
// ErrAssignorTimeout, which a next-gen coordinator answers as any failing
// assignor (UNKNOWN_SERVER_ERROR for the heartbeat that needed a new
// target; the group keeps its previous target). The pure coordinator reads
// no clock and cannot bound a call itself; a driver on real time can. The
// late call is not stopped (Go cannot stop a goroutine): it runs on and its
// result is dropped, so an assignor that never returns leaks one goroutine
// per call. The result keeps a's Name and, when a claims stickiness
// (assign.StickyAssignor), its KeepsClaims. A limit of zero or less is an
// error.
func BoundedAssignor(a assign.Assignor, limit time.Duration) (assign.Assignor, error) {
	switch {
	case a == nil:
		return nil, errors.New("impl: BoundedAssignor: nil assignor")
	case limit <= 0:
		return nil, fmt.Errorf("impl: BoundedAssignor: limit %v is not positive", limit)
	}
	b := bounded{a: a, limit: limit}
	if s, ok := a.(assign.StickyAssignor); ok {
		return boundedSticky{bounded: b, keeps: s.KeepsClaims()}, nil
	}
	return b, nil
}

type bounded struct {
	a     assign.Assignor
	limit time.Duration
}

func (b bounded) Name() string { return b.a.Name() }

// Assign runs the wrapped assignor on a goroutine of its own and waits at
// most the limit for it.
func (b bounded) Assign(g assign.Group) (spec.Assignment, error) {
	type result struct {
		a   spec.Assignment
		err error
	}
	done := make(chan result, 1) // buffered: a late call does not block
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("the assignor panicked: %v", p)}
			}
		}()
		a, err := b.a.Assign(g)
		done <- result{a, err}
	}()
	timer := time.NewTimer(b.limit)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.a, r.err
	case <-timer.C:
		return nil, fmt.Errorf("%w: %s took longer than %v", ErrAssignorTimeout, b.a.Name(), b.limit)
	}
}

type boundedSticky struct {
	bounded
	keeps bool
}

func (b boundedSticky) KeepsClaims() bool { return b.keeps }
