package checker

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/world"
)

// MemberSigner is a Model that can tell interchangeable members
// (Model.Interchangeable) apart by what they hold, for the symmetry
// reduction (Options.Symmetry).
//
// MemberSignature must not depend on any member's name, nor on anything
// derived from names (member ids, addresses, an order of members by
// name): where state t is state s with the members of a group renamed by
// a permutation, the signature of member n in s must equal that of n's
// image in t. The reduction encodes a state only under the renamings that
// give each group's names to its members in the order of their
// signatures, trying every order among members whose signatures tie, and
// keeps the least encoding. Under that rule the least encoding is the
// same for a state and all its renamings, so the reduction stores the
// same states as one over every permutation, and the fewer the ties, the
// fewer the encodings. A signature that breaks the rule never merges two
// states that are not renamings of each other (every encoding tried is
// one of the state's renamings); it only leaves some renamings stored
// apart.
type MemberSigner[S any] interface {
	MemberSignature(s S, member string) uint64
}

// MaxPermutations is the most permutations of the interchangeable members
// (Model.Interchangeable) a symmetry reduction (Options.Symmetry) accepts:
// 8!, one group of eight members. A state is encoded once for each order
// of the members whose signatures tie (MemberSigner), and every member
// ties in a state where none has done anything yet, or in every state of
// a model that is no MemberSigner: such a state costs as many encodings
// as the groups have permutations, at 8! about forty thousand, and one
// more member would make it nine times that.
const MaxPermutations = 40320

// symmetry is a symmetry reduction's fixed part: the interchangeable
// groups, each sorted by name, their names in one list, group after
// group, and the model's signer (nil when the model has none: every
// member then ties with the others of its group).
type symmetry[S any] struct {
	groups [][]string
	names  []string
	signer MemberSigner[S]
	// scratch holds *orders, so that each worker reuses one.
	scratch sync.Pool
}

// newSymmetry returns the reduction over groups with signer (nil: none),
// or an error when the groups have more than MaxPermutations
// permutations.
func newSymmetry[S any](groups [][]string, signer MemberSigner[S]) (*symmetry[S], error) {
	if n, ok := countPermutations(groups); !ok {
		return nil, fmt.Errorf("symmetry reduction: the interchangeable members (%s) have %s permutations, more than %d; a state where they all tie would be encoded once for each, so explore with fewer members or without it",
			describeGroups(groups), n, MaxPermutations)
	}
	y := &symmetry[S]{signer: signer}
	for _, g := range groups {
		sorted := slices.Sorted(slices.Values(g))
		y.groups, y.names = append(y.groups, sorted), append(y.names, sorted...)
	}
	return y, nil
}

// orders is one state's renamings: members holds every group's members,
// group after group, each group sorted by signature, so that members[i]
// is renamed to names[i] (symmetry.names); ties lists the spans [lo, hi)
// of members whose signatures are equal (two or more). rename renames by
// p, which fill sets from members and names.
type orders struct {
	members, names []string
	sigs           []uint64
	ties           [][2]int
	p              map[string]string
	rename         func(string) string
}

// orders returns the renamings of s to try, from the pool; put it back
// with release.
func (y *symmetry[S]) orders(s S) *orders {
	o, _ := y.scratch.Get().(*orders)
	if o == nil {
		o = &orders{p: map[string]string{}}
		o.rename = renamer(o.p)
	}
	o.members, o.names, o.sigs, o.ties = o.members[:0], y.names, o.sigs[:0], o.ties[:0]
	for _, g := range y.groups {
		lo := len(o.members)
		for _, name := range g {
			var sig uint64
			if y.signer != nil {
				sig = y.signer.MemberSignature(s, name)
			}
			o.members, o.sigs = append(o.members, name), append(o.sigs, sig)
		}
		// Sort the group's members by signature; the order among equal
		// signatures does not matter, since each tries them all.
		sortBySig(o.members[lo:], o.sigs[lo:])
		for i := lo; i < len(o.members); {
			j := i + 1
			for j < len(o.members) && o.sigs[j] == o.sigs[i] {
				j++
			}
			if j-i > 1 {
				o.ties = append(o.ties, [2]int{i, j})
			}
			i = j
		}
	}
	return o
}

func (y *symmetry[S]) release(o *orders) { y.scratch.Put(o) }

// sortBySig sorts members and sigs together by sig (a group is small:
// insertion sort allocates nothing).
func sortBySig(members []string, sigs []uint64) {
	for i := 1; i < len(sigs); i++ {
		for j := i; j > 0 && sigs[j] < sigs[j-1]; j-- {
			sigs[j], sigs[j-1] = sigs[j-1], sigs[j]
			members[j], members[j-1] = members[j-1], members[j]
		}
	}
}

// each calls f once for each renaming: every order of the members within
// each span of ties, the spans' orders combined. When f runs, o.p maps
// each moved member to its new name (empty for the identity) and
// o.rename renames by it.
func (o *orders) each(f func()) { o.eachFrom(0, f) }

func (o *orders) eachFrom(k int, f func()) {
	if k == len(o.ties) {
		o.fill()
		f()
		return
	}
	span := o.members[o.ties[k][0]:o.ties[k][1]]
	permuteInPlace(span, len(span), func() { o.eachFrom(k+1, f) })
}

// fill sets p from members and names.
func (o *orders) fill() {
	clear(o.p)
	for i, m := range o.members {
		if m != o.names[i] {
			o.p[m] = o.names[i]
		}
	}
}

// permuteInPlace calls f once for each order of xs[:n], with xs in that
// order (Heap's algorithm: each order differs from the one before by one
// swap).
func permuteInPlace(xs []string, n int, f func()) {
	if n <= 1 {
		f()
		return
	}
	for i := 0; i < n-1; i++ {
		permuteInPlace(xs, n-1, f)
		if n%2 == 0 {
			xs[i], xs[n-1] = xs[n-1], xs[i]
		} else {
			xs[0], xs[n-1] = xs[n-1], xs[0]
		}
	}
	permuteInPlace(xs, n-1, f)
}

// encodeReduced is the least encoding of s over the renamings that order
// each group by signature (MemberSigner). Like the plain path of encode,
// it leaves enc as encoding s without renaming left it, for Keeper.Keep:
// the plain encoding comes last, and counts when the identity is among
// the renamings.
func (x *explorer[S, A]) encodeReduced(enc *canon.Encoder, s S) []byte {
	// Every encoding opens the payloads that hold identities, the plain
	// one included, so that each has the same form
	// (canon.Encoder.OpenPayloads).
	enc.OpenPayloads = true
	o := x.sym.orders(s)
	var keep []byte
	identity := false
	o.each(func() {
		if len(o.p) == 0 {
			identity = true
			return
		}
		enc.Reset()
		enc.Rename = o.rename
		x.m.Encode(enc, s)
		if b := enc.Finish(); keep == nil || string(b) < string(keep) {
			keep = append(keep[:0], b...)
		}
	})
	x.sym.release(o)
	enc.Reset()
	enc.Rename = nil
	x.m.Encode(enc, s)
	b := enc.Finish()
	if keep == nil || identity && string(b) <= string(keep) {
		return b
	}
	return keep
}

// countPermutations returns the number of permutations of groups (the
// product of the factorials of their sizes), in decimal, and whether it is
// at most MaxPermutations; past it, the number is written as a product of
// factorials ("12!") rather than computed.
func countPermutations(groups [][]string) (string, bool) {
	n := 1
	var factors []string
	for _, g := range groups {
		factors = append(factors, fmt.Sprintf("%d!", len(g)))
		for k := 2; k <= len(g); k++ {
			if n > MaxPermutations {
				break
			}
			n *= k
		}
	}
	if n > MaxPermutations {
		return strings.Join(factors, " x "), false
	}
	return strconv.Itoa(n), true
}

// describeGroups lists groups as "A B C; D E" for messages.
func describeGroups(groups [][]string) string {
	var parts []string
	for _, g := range groups {
		parts = append(parts, strings.Join(g, " "))
	}
	return strings.Join(parts, "; ")
}

// renamer renames an identity by p (canon.Encoder.Rename, which the
// encoders call on identities only): a member name, and the addresses and
// member ids derived from it (name@k, name-N), which it reads as
// world.Numbered does, by their last '@' or '-' and a number after it. So
// a name may hold either character but '@' (the world refuses that, and
// two names of which one reads as the other's member ids:
// world.AddMember), and a process named A-x is not taken for a string
// derived from A. It reads p when called, so p may change between calls.
func renamer(p map[string]string) func(string) string {
	return func(s string) string {
		if r, ok := p[s]; ok {
			return r
		}
		for _, sep := range [...]byte{'@', '-'} {
			if name, _, ok := world.Numbered(s, sep, p); ok {
				return p[name] + s[len(name):]
			}
		}
		return s
	}
}
