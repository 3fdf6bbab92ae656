package script

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// scenarioFiles returns the committed scenario and counterexample files
// of both families, the seeds of the fuzz targets here.
func scenarioFiles(f *testing.F) []string {
	f.Helper()
	var out []string
	for _, pattern := range []string{
		"../classic/world/testdata/*/*.txt",
		"../nextgen/world/testdata/*/*.txt",
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	if len(out) == 0 {
		f.Fatal("no scenario files found to seed the corpus")
	}
	return out
}

// printLine writes a command in the syntax ParseLine reads: the verb,
// then each argument as a bare word, key=value or key=(v1,v2,...).
func printLine(cmd string, args []Arg) string {
	var b strings.Builder
	b.WriteString(cmd)
	for _, a := range args {
		b.WriteString(" " + a.Key)
		switch {
		case a.Vals == nil:
		case len(a.Vals) == 1 && bare(a.Vals[0]):
			b.WriteString("=" + a.Vals[0])
		default:
			b.WriteString("=(" + strings.Join(a.Vals, ",") + ")")
		}
	}
	return b.String()
}

// bare reports whether v can be printed as key=v: it is not itself
// wrapped in parentheses, and every space in it is inside some.
func bare(v string) bool {
	if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
		return false
	}
	depth := 0
	for _, r := range v {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 {
				return false
			}
		}
	}
	return true
}

// FuzzParseLine: ParseLine never panics; an accepted line has a verb and
// arguments without a space outside parentheses, and printed back in the
// scenario syntax (verb, bare words, key=value, key=(v1,...)) it parses
// to the same verb and arguments.
func FuzzParseLine(f *testing.F) {
	for _, text := range scenarioFiles(f) {
		for l := range strings.SplitSeq(text, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") && l != "----" {
				f.Add(l)
			}
		}
	}
	for _, l := range []string{"", " ", "a (", "a )", "x k=() k2=(,) =v k=a=b w=((a,b))", "verb  two  spaces ", "a k=(x)y k=(x"} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, args, err := ParseLine(line)
		if err != nil {
			if cmd != "" || args != nil {
				t.Fatalf("%q: an error with a result: %q %v", line, cmd, args)
			}
			return
		}
		if cmd == "" {
			t.Fatalf("%q: parsed with an empty verb", line)
		}
		printed := printLine(cmd, args)
		cmd2, args2, err := ParseLine(printed)
		if err != nil {
			t.Fatalf("%q parsed as %q %q, printed as %q, which does not parse: %v", line, cmd, args, printed, err)
		}
		if cmd2 != cmd || !slices.EqualFunc(args, args2, func(a, b Arg) bool { return a.Key == b.Key && slices.Equal(a.Vals, b.Vals) }) {
			t.Fatalf("%q parsed as %q %q; printed as %q it parses as %q %q", line, cmd, args, printed, cmd2, args2)
		}
	})
}

var protocolWord = regexp.MustCompile(`^\w+$`)

// FuzzParseCounterexample: ParseCounterexample never panics; what it
// accepts names a protocol (a word) and lists as commands only lines of
// the text that a "----" follows (never a comment, "ownership" or
// "check"); and a scenario file written by File from what it read (the
// same header, the commands) reads back as the same counterexample, as
// rebalance replay reads what rebalance check wrote.
func FuzzParseCounterexample(f *testing.F) {
	for _, text := range scenarioFiles(f) {
		f.Add(text)
	}
	f.Add("# Counterexample found by rebalance check --protocol eager\n# L: x\n\ngroup\n----\n\n")
	f.Add("# Counterexample found by rebalance check --protocol eager\n# L\na\n----\n----\nout\n\nb\n----\n----\n\n")
	f.Add("# Counterexample found by rebalance check --protocol nextgen")
	f.Fuzz(func(t *testing.T, text string) {
		ce, err := ParseCounterexample(text)
		if err != nil {
			return
		}
		if !protocolWord.MatchString(ce.Protocol) {
			t.Fatalf("protocol %q is not a word", ce.Protocol)
		}
		lines := strings.Split(text, "\n")
		for _, c := range ce.Commands {
			i := slices.Index(lines, c)
			if i < 0 || c == "" || strings.HasPrefix(c, "#") || c == "ownership" || c == "check" || c == "----" {
				t.Fatalf("command %q: not a command line of the text", c)
			}
		}
		// Write it back as rebalance check does (a header, the law, the
		// commands with their outputs; here every output is empty) and
		// read it again.
		comment := []string{"Counterexample found by rebalance check --protocol " + ce.Protocol + ":", ce.Law + ": replayed"}
		file, err := File(comment, ce.Commands, func(string, []Arg) (string, error) { return "", nil })
		if err != nil {
			// A command ParseLine refuses: replay reports it as an error.
			return
		}
		again, err := ParseCounterexample(file)
		if err != nil {
			t.Fatalf("the rewritten file does not read: %v\n%s", err, file)
		}
		if again.Protocol != ce.Protocol || again.Law != ce.Law || !slices.Equal(again.Commands, ce.Commands) {
			t.Fatalf("read back differently:\nfirst  %q\nsecond %q\nfile:\n%s", ce, again, file)
		}
	})
}
