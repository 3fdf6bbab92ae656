package crosscheck

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSpecDigestIgnoresStrays checks that a family's spec digest covers
// its spec and harness only: the trace-explorer files TLC leaves beside
// the specs after an error (MCClassic_TTrace_<time>.tla and .bin), or any
// other .tla file, do not change it, so they cannot make the committed
// golden files read as stale.
func TestSpecDigestIgnoresStrays(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"Classic.tla", "MCClassic.tla", "NextGen.tla", "MCNextGen.tla"} {
		write(n, "---- MODULE "+n[:len(n)-len(".tla")]+" ----\n====\n")
	}
	digests := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, config := range []string{"classic-eager-m2j1t1p2", "nextgen-m2j1t1p2"} {
			files, err := SpecFiles(dir, config)
			if err != nil {
				t.Fatal(err)
			}
			d, err := FileDigest(files...)
			if err != nil {
				t.Fatal(err)
			}
			out[config] = d
		}
		return out
	}
	before := digests()
	for _, n := range []string{"MCClassic_TTrace_123.tla", "MCClassic_TTrace_123.bin", "MCNextGen_TTrace_456.tla", "MCNextGen_TTrace_456.bin", "ClassicScratch.tla", "NextGenTE.tla"} {
		write(n, "stray\n")
	}
	after := digests()
	for config, d := range before {
		if after[config] != d {
			t.Errorf("%s: stray files beside the specs change the spec digest from %s to %s", config, d, after[config])
		}
	}
	// And a change to a family's own file does change its digest only.
	write("MCClassic.tla", "---- MODULE MCClassic ----\nX == 1\n====\n")
	changed := digests()
	if changed["classic-eager-m2j1t1p2"] == before["classic-eager-m2j1t1p2"] {
		t.Error("editing MCClassic.tla leaves the classic spec digest unchanged")
	}
	if changed["nextgen-m2j1t1p2"] != before["nextgen-m2j1t1p2"] {
		t.Error("editing MCClassic.tla changes the next-gen spec digest")
	}
}

// TestSpecFilesAreTheFamilies checks which files SpecFiles names, and that
// they are all in tla/.
func TestSpecFilesAreTheFamilies(t *testing.T) {
	for config, want := range map[string][]string{
		"classic-cooperative-m3j1t1p2": {"Classic.tla", "MCClassic.tla"},
		"nextgen-m4j1t1p2":             {"MCNextGen.tla", "NextGen.tla"},
	} {
		files, err := SpecFiles(specDir, config)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range files {
			if _, err := os.Stat(f); err != nil {
				t.Error(err)
			}
			got = append(got, filepath.Base(f))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: spec files %v, want %v", config, got, want)
		}
	}
	if _, err := SpecFiles(specDir, "other-m2"); err == nil {
		t.Error("SpecFiles accepts a configuration of no family")
	}
}
