package tlaval

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads one value as TLC prints it: integers, "strings", TRUE and
// FALSE, model values, <<sequences>>, {sets}, intervals a..b, [records |->]
// and (functions :> @@). Whitespace, newlines included, separates tokens.
// It returns an error saying where the text stops making sense.
func Parse(text string) (Value, error) {
	p := &parser{src: text}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.pos != len(p.src) {
		return Value{}, p.errorf("unexpected %q after the value", p.rest(10))
	}
	return v, nil
}

// ParseState reads a state as TLC prints it, a conjunction of variable
// assignments ("/\ x = 1 /\ y = {}", or "x = 1" for a single variable), and
// returns the record of the variables.
func ParseState(text string) (Value, error) {
	p := &parser{src: text}
	var pairs []Value
	for {
		p.space()
		if p.pos == len(p.src) {
			break
		}
		p.accept(`/\`)
		p.space()
		name := p.ident()
		if !isIdent(name) {
			return Value{}, p.errorf("want a variable name, got %q", p.rest(10))
		}
		p.space()
		if !p.accept("=") {
			return Value{}, p.errorf("want = after %s", name)
		}
		v, err := p.value()
		if err != nil {
			return Value{}, fmt.Errorf("variable %s: %w", name, err)
		}
		pairs = append(pairs, Str(name), v)
	}
	if len(pairs) == 0 {
		return Value{}, fmt.Errorf("state %q: no variables", text)
	}
	v, err := function(pairs)
	if err != nil {
		return Value{}, fmt.Errorf("state: %v", err)
	}
	return v, nil
}

// maxInterval bounds the elements of an interval a..b: the parser lists
// them all, so an interval of TLC's whole integer range would not fit in
// memory (and past MaxInt its loop would not end). TLC prints sets of this
// project's models far smaller.
const maxInterval = 1 << 16

type parser struct {
	src string
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) rest(n int) string {
	r := p.src[p.pos:]
	if len(r) > n {
		r = r[:n] + "..."
	}
	return r
}

func (p *parser) space() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

// accept consumes tok (after white space) if it comes next.
func (p *parser) accept(tok string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *parser) value() (Value, error) {
	p.space()
	if p.pos == len(p.src) {
		return Value{}, p.errorf("want a value, got the end of the text")
	}
	switch c := p.src[p.pos]; {
	case strings.HasPrefix(p.src[p.pos:], "<<"):
		p.pos += 2
		elems, err := p.list(">>")
		if err != nil {
			return Value{}, err
		}
		return Seq(elems...), nil
	case c == '{':
		p.pos++
		elems, err := p.list("}")
		if err != nil {
			return Value{}, err
		}
		return Set(elems...), nil
	case c == '[':
		p.pos++
		return p.record()
	case c == '(':
		p.pos++
		return p.function()
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		n, err := p.integer()
		if err != nil {
			return Value{}, err
		}
		if p.accept("..") {
			m, err := p.integer()
			if err != nil {
				return Value{}, err
			}
			// size is m-n+1 when m >= n, computed in uint64: m-n overflows
			// int when the bounds lie far apart (either way round).
			size := 0
			if m >= n {
				d := uint64(m) - uint64(n)
				if d >= maxInterval {
					return Value{}, p.errorf("interval %d..%d: more than %d elements", n, m, maxInterval)
				}
				size = int(d) + 1
			}
			elems := make([]Value, 0, size)
			for k := range size {
				elems = append(elems, Int(n+k))
			}
			return Set(elems...), nil
		}
		return Int(n), nil
	default:
		id := p.ident()
		switch id {
		case "":
			return Value{}, p.errorf("want a value, got %q", p.rest(10))
		case "TRUE":
			return Bool(true), nil
		case "FALSE":
			return Bool(false), nil
		}
		if !isIdent(id) {
			return Value{}, p.errorf("%q is not a value", id)
		}
		return ModelValue(id), nil
	}
}

// list reads comma-separated values up to the closing token.
func (p *parser) list(closing string) ([]Value, error) {
	var out []Value
	if p.accept(closing) {
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.accept(closing) {
			return out, nil
		}
		if !p.accept(",") {
			return nil, p.errorf("want , or %s, got %q", closing, p.rest(10))
		}
	}
}

func (p *parser) record() (Value, error) {
	var pairs []Value
	for {
		p.space()
		name := p.ident()
		if name == "" {
			return Value{}, p.errorf("want a field name, got %q", p.rest(10))
		}
		if !p.accept("|->") {
			return Value{}, p.errorf("want |-> after field %s", name)
		}
		v, err := p.value()
		if err != nil {
			return Value{}, fmt.Errorf("field %s: %w", name, err)
		}
		pairs = append(pairs, Str(name), v)
		if p.accept("]") {
			break
		}
		if !p.accept(",") {
			return Value{}, p.errorf("want , or ] in a record, got %q", p.rest(10))
		}
	}
	v, err := function(pairs)
	if err != nil {
		return Value{}, p.errorf("record: %v", err)
	}
	return v, nil
}

func (p *parser) function() (Value, error) {
	var pairs []Value
	for {
		k, err := p.value()
		if err != nil {
			return Value{}, err
		}
		if !p.accept(":>") {
			return Value{}, p.errorf("want :> after key %s", k)
		}
		v, err := p.value()
		if err != nil {
			return Value{}, err
		}
		pairs = append(pairs, k, v)
		if p.accept(")") {
			break
		}
		if !p.accept("@@") {
			return Value{}, p.errorf("want @@ or ) in a function, got %q", p.rest(10))
		}
	}
	v, err := function(pairs)
	if err != nil {
		return Value{}, p.errorf("function: %v", err)
	}
	return v, nil
}

func (p *parser) integer() (int, error) {
	p.space()
	start := p.pos
	if p.pos < len(p.src) && p.src[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		p.pos = start
		return 0, p.errorf("want an integer, got %q", p.rest(10))
	}
	return n, nil
}

func (p *parser) str() (Value, error) {
	start := p.pos
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return Str(b.String()), nil
		case '\\':
			if p.pos+1 == len(p.src) {
				p.pos = start
				return Value{}, p.errorf("unterminated string")
			}
			switch e := p.src[p.pos+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(e)
			}
			p.pos += 2
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	p.pos = start
	return Value{}, p.errorf("unterminated string")
}
