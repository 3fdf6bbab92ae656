package tlaval

import "fmt"

// Diff lists where a and b differ, one line per differing leaf, as
// "path: <a's value> / <b's value>". It descends into records (path.field),
// sequences (path[i]) and functions (path[key]) when both sides have the
// same kind and domain, and otherwise reports the whole value at that
// path. It returns nil for equal values.
func Diff(path string, a, b Value) []string {
	if a.text == b.text {
		return nil
	}
	if a.kind == b.kind && sameKeys(a, b) {
		var out []string
		switch a.kind {
		case KindRecord:
			for i, k := range a.keys {
				p := k.s
				if path != "" {
					p = path + "." + k.s
				}
				out = append(out, Diff(p, a.vals[i], b.vals[i])...)
			}
			return out
		case KindFunction:
			for i, k := range a.keys {
				out = append(out, Diff(fmt.Sprintf("%s[%s]", path, k.text), a.vals[i], b.vals[i])...)
			}
			return out
		case KindSeq:
			if len(a.elems) == len(b.elems) {
				for i := range a.elems {
					out = append(out, Diff(fmt.Sprintf("%s[%d]", path, i+1), a.elems[i], b.elems[i])...)
				}
				return out
			}
		}
	}
	return []string{fmt.Sprintf("%s: %s / %s", path, a.text, b.text)}
}

func sameKeys(a, b Value) bool {
	if len(a.keys) != len(b.keys) {
		return false
	}
	for i := range a.keys {
		if a.keys[i].text != b.keys[i].text {
			return false
		}
	}
	return true
}
