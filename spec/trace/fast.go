package trace

import (
	"strconv"
	"unicode/utf8"
)

// fastDecoder decodes the plain shape of an event line without
// reflection, interning the names that repeat from line to line. It takes
// only what it decodes exactly as encoding/json does: keys spelt as the
// fields' tags, strings without escapes, integers without fraction or
// exponent, no null and no key twice. For anything else it declines, and
// the line goes to encoding/json, whose answer stands (FuzzFastDecoder
// holds the two to the same events): among others, every line with a
// commit's offsets (an object).
type fastDecoder struct {
	names map[string]string
}

func newFastDecoder() *fastDecoder { return &fastDecoder{names: map[string]string{}} }

// decode returns the event on line and true, or false when it declines.
func (d *fastDecoder) decode(line []byte) (Event, bool) {
	var e Event
	p := parser{b: line}
	p.space()
	if !p.eat('{') {
		return e, false
	}
	var seen uint32
	p.space()
	if p.eat('}') {
		return e, p.end()
	}
	for {
		p.space()
		key, ok := p.str()
		if !ok {
			return e, false
		}
		p.space()
		if !p.eat(':') {
			return e, false
		}
		p.space()
		bit, ok := d.value(&p, &e, key)
		if !ok || seen&bit != 0 {
			return e, false
		}
		seen |= bit
		p.space()
		if p.eat('}') {
			return e, p.end()
		}
		if !p.eat(',') {
			return e, false
		}
	}
}

// value decodes the value of key into e and returns the key's bit.
func (d *fastDecoder) value(p *parser, e *Event, key []byte) (uint32, bool) {
	switch string(key) {
	case "t":
		v, ok := p.integer(64)
		e.T = v
		return 1 << 0, ok
	case "call":
		v, ok := p.integer(64)
		e.Call = &v
		return 1 << 1, ok
	case "generation":
		v, ok := p.integer(32)
		g := int32(v)
		e.Generation = &g
		return 1 << 2, ok
	case "partitions":
		v, ok := p.integer(32)
		e.Partitions = int32(v)
		return 1 << 3, ok
	case "error":
		v, ok := p.integer(16)
		c := int16(v)
		e.Error = &c
		return 1 << 4, ok
	case "kind":
		s, ok := d.name(p)
		e.Kind = Kind(s)
		return 1 << 5, ok
	case "process":
		s, ok := d.name(p)
		e.Process = s
		return 1 << 6, ok
	case "member":
		s, ok := d.name(p)
		e.Member = s
		return 1 << 7, ok
	case "instance":
		s, ok := d.name(p)
		e.Instance = s
		return 1 << 8, ok
	case "client":
		s, ok := d.name(p)
		e.Client = s
		return 1 << 9, ok
	case "topic":
		s, ok := d.name(p)
		e.Topic = s
		return 1 << 10, ok
	case "api":
		s, ok := d.name(p)
		e.API = s
		return 1 << 11, ok
	case "resources":
		l, ok := d.list(p)
		e.Resources = l
		return 1 << 12, ok
	case "topics":
		l, ok := d.list(p)
		e.Topics = l
		return 1 << 13, ok
	case "resource":
		s, ok := d.name(p)
		e.Resource = s
		return 1 << 14, ok
	case "offset":
		v, ok := p.integer(64)
		e.Offset = &v
		return 1 << 15, ok
	case "count":
		v, ok := p.integer(64)
		e.Count = &v
		return 1 << 16, ok
	case "refused":
		l, ok := d.list(p)
		e.Refused = l
		return 1 << 17, ok
	}
	return 0, false
}

// name reads a string, interned.
func (d *fastDecoder) name(p *parser) (string, bool) {
	b, ok := p.str()
	if !ok {
		return "", false
	}
	if s, ok := d.names[string(b)]; ok {
		return s, true
	}
	if len(d.names) > 1<<16 {
		return string(b), true
	}
	s := string(b)
	d.names[s] = s
	return s, true
}

// list reads an array of strings (empty, not nil, for []).
func (d *fastDecoder) list(p *parser) ([]string, bool) {
	if !p.eat('[') {
		return nil, false
	}
	out := []string{}
	p.space()
	if p.eat(']') {
		return out, true
	}
	for {
		p.space()
		s, ok := d.name(p)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		p.space()
		if p.eat(']') {
			return out, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

// parser reads JSON tokens from b at i.
type parser struct {
	b []byte
	i int
}

func (p *parser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (p *parser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// str reads a string with no escape and no control character, in valid
// UTF-8 (encoding/json would change invalid bytes).
func (p *parser) str() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	ascii := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		p.i++
	}
	return nil, false
}

// integer reads a JSON integer that fits in bits bits.
func (p *parser) integer(bits int) (int64, bool) {
	start := p.i
	p.eat('-')
	digits := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	n := p.i - digits
	if n == 0 || (n > 1 && p.b[digits] == '0') {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, bits)
	return v, err == nil
}
