package oracle

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata")

// examples names each example trace and the one law it breaks ("" for a
// trace that passes). docs/oracle.md shows them.
var examples = map[string]spec.Law{
	"pass":                    "",
	"fenced-zombie":           "",
	"callbacks-only":          "",
	"commits":                 "",
	"parting-commit-refused":  "",
	"exclusive-ownership":     spec.ExclusiveOwnership,
	"subscribed-only":         spec.SubscribedOnly,
	"existing-only":           spec.ExistingOnly,
	"monotonic-generation":    spec.MonotonicGeneration,
	"cooperative-handoff":     spec.CooperativeHandoff,
	"coverage":                spec.Coverage,
	"balance":                 spec.Balance,
	"bounded-rounds":          spec.BoundedRounds,
	"linearizable":            Linearizable,
	"at-least-once":           spec.AtLeastOnce,
	"exactly-once-when-clean": spec.ExactlyOnceWhenClean,
	"zombie-commit-rejected":  spec.ZombieCommitRejected,
}

// TestExamples: each example trace breaks exactly the law it is named
// after (or none), its report is the golden one in testdata (the output
// of `rebalance trace check --out out FILE` from the repository's root;
// -update rewrites them), and a failing one gets its pictures.
func TestExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.ndjson"))
	if err != nil || len(files) != len(examples) {
		t.Fatalf("%d example traces (%v), want %d", len(files), err, len(examples))
	}
	t.Chdir(t.TempDir())
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".ndjson")
		t.Run(base, func(t *testing.T) {
			want, ok := examples[base]
			if !ok {
				t.Fatalf("example %s is not in the table", base)
			}
			name := filepath.ToSlash(filepath.Join("checker", "oracle", f))
			rep, err := CheckFile(filepath.Join(root, name), Options{Name: name, OutDir: "out"})
			if err != nil {
				t.Fatal(err)
			}
			var broken []spec.Law
			for _, v := range rep.Verdicts {
				if v.Status == Broken {
					broken = append(broken, v.Law)
				}
			}
			if want == "" && len(broken) > 0 || want != "" && !slices.Equal(broken, []spec.Law{want}) {
				t.Errorf("broken laws %v, want only %q", broken, want)
			}
			golden := filepath.Join(root, "checker", "oracle", "testdata", base+".out")
			if *update {
				if err := os.WriteFile(golden, []byte(rep.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(g), rep.String()); diff != "" {
				t.Errorf("report differs from %s (-golden +got):\n%s", golden, diff)
			}
			for path, marker := range map[string]string{rep.SVG: "<svg", rep.HTML: "<html"} {
				if path == "" {
					continue
				}
				b, err := os.ReadFile(path)
				if err != nil || !strings.Contains(string(b), marker) {
					t.Errorf("picture %s: %v, want a file with %s", path, err, marker)
				}
			}
			if (rep.SVG != "") == rep.OK() || (rep.HTML != "") != (want == Linearizable) {
				t.Errorf("pictures %q and %q for a report OK=%v breaking %q", rep.SVG, rep.HTML, rep.OK(), want)
			}
		})
	}
}

// TestReportJSON: the JSON report carries every verdict and decodes back
// to the report.
func TestReportJSON(t *testing.T) {
	rep, err := CheckFile(filepath.Join("testdata", "balance.ndjson"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, back); diff != "" {
		t.Fatalf("JSON round trip (-report +decoded):\n%s", diff)
	}
	if v, _ := back.Verdict(spec.Balance); v.Status != Broken || v.Line != 9 {
		t.Fatalf("balance verdict %+v", v)
	}
}

// TestNothingJudgedIsNotHeld: a trace of wire events only judges no law:
// every verdict is "not judged", none "held".
func TestNothingJudgedIsNotHeld(t *testing.T) {
	tr := mustRead(t, `{"format":"rebalance-trace","version":1,"protocol":"nextgen"}
{"t":1,"kind":"request","api":"ConsumerGroupHeartbeat","member":"m","generation":0}
{"t":2,"kind":"response","api":"ConsumerGroupHeartbeat","member":"m","generation":1,"error":0}
`)
	rep, err := Check(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rep.Verdicts {
		if v.Status != NotJudged || v.Detail == "" {
			t.Errorf("%s: %s (%s), want not judged with a reason", v.Law, v.Status, v.Detail)
		}
	}
	if !rep.OK() {
		t.Fatal("a trace that breaks nothing is not OK")
	}
}

func mustRead(t *testing.T, s string) *trace.Trace {
	t.Helper()
	tr, err := trace.Read(strings.NewReader(s), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestDocsShowTheOutputs: every output docs/oracle.md shows after a line
// "$ rebalance trace check --out out checker/oracle/testdata/NAME.ndjson"
// is that example's golden output, and the traces it shows whole are
// the files.
func TestDocsShowTheOutputs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "oracle.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	shown := 0
	for i, l := range lines {
		name, ok := strings.CutPrefix(l, "$ rebalance trace check --out out checker/oracle/testdata/")
		if !ok {
			continue
		}
		if i+2 >= len(lines) || lines[i+2] != "```text" {
			t.Fatalf("line %d: want a text block after the command", i+1)
		}
		end := slices.Index(lines[i+3:], "```")
		if end < 0 {
			t.Fatalf("line %d: the block does not end", i+3)
		}
		got := strings.Join(lines[i+3:i+3+end], "\n") + "\n"
		want, err := os.ReadFile(filepath.Join("testdata", strings.TrimSuffix(name, ".ndjson")+".out"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("docs/oracle.md line %d shows another output of %s (-golden +docs):\n%s", i+1, name, diff)
		}
		shown++
	}
	for _, name := range []string{"pass", "zombie-commit-rejected"} {
		ex, err := os.ReadFile(filepath.Join("testdata", name+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "```json\n"+string(ex)+"```") {
			t.Errorf("docs/oracle.md does not show %s.ndjson as it is", name)
		}
	}
	if shown < 2 {
		t.Fatalf("docs/oracle.md shows %d outputs, want at least 2", shown)
	}
}
