// Command rebalance is the command line of the rebalancing reference.
//
//	rebalance check [flags]      model-check every protocol exhaustively at small bounds
//	rebalance simulate [flags]   what each protocol costs a group through a workload, with pictures
//	rebalance random [flags]     sample longer random runs of every protocol
//	rebalance serve [flags]      a Kafka endpoint whose group coordinator is the reference
//	rebalance trace check FILE   judge traces of other implementations (the oracle)
//	rebalance replay FILE        replay a counterexample file or a trace
//
// Exit status: 0 when every law holds, 1 when one is violated, 2 on a usage
// error or unreadable input.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/spf13/cobra"
)

// usageError marks errors caused by bad flags or arguments (exit status 2).
type usageError struct{ error }

// errViolation marks a run that found a violated law (exit status 1).
var errViolation = errors.New("a law is violated")

// errUnreadable marks input that could not be read, reported already
// (exit status 2).
var errUnreadable = errors.New("unreadable input")

func main() {
	err := newRootCmd().Execute()
	var ue usageError
	switch {
	case err == nil:
	case errors.Is(err, errViolation):
		os.Exit(1)
	case errors.Is(err, errUnreadable):
		os.Exit(2)
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "rebalance:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "rebalance:", err)
		os.Exit(2)
	}
}

// newRootCmd returns the rebalance command with its subcommands.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "rebalance",
		Short:         "Executable reference for group rebalancing protocols (Kafka's eager, cooperative, deferred, incremental, next-gen)",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newCheckCmd(), newSimulateCmd(), newRandomCmd(), newServeCmd(), newTraceCmd(), newReplayCmd())
	return root
}

// listFaults prints every fault switch of both families, one per line,
// a defence in depth with why no checked world shows it.
func listFaults(out io.Writer) {
	width := 0
	for _, fi := range classic.FaultList {
		width = max(width, len(fi.Name))
	}
	for _, fi := range nextgen.FaultList {
		width = max(width, len(fi.Name))
	}
	for _, fi := range core.DeliveryFaultList {
		width = max(width, len(fi.Name))
	}
	line := func(name, family, doc, defence string) {
		if defence != "" {
			doc += " [defence in depth, no checked world shows it alone: " + defence + "]"
		}
		fmt.Fprintf(out, "%-*s %s: %s\n", width, name, family, doc)
	}
	for _, fi := range classic.FaultList {
		line(fi.Name, "classic", fi.Doc, fi.Defence)
	}
	for _, fi := range nextgen.FaultList {
		line(fi.Name, "nextgen", fi.Doc, fi.Defence)
	}
	for _, fi := range core.DeliveryFaultList {
		line(fi.Name, "delivery, both families", fi.Doc, fi.Defence)
	}
}

// parseFaults splits fault switch names into the classic and next-gen
// sets (a delivery fault, which the worlds take, is in neither: see
// deliveryFaults); an unknown name is a usage error.
func parseFaults(names []string) (classic.Faults, nextgen.Fault, error) {
	var faults classic.Faults
	var ngFaults nextgen.Fault
	for _, n := range names {
		// A name both families know (accept-stale-commits) turns the
		// switch on in both.
		f, cerr := classic.ParseFault(n)
		faults |= f
		g, nerr := nextgen.ParseFault(n)
		ngFaults |= g
		_, derr := core.ParseDeliveryFault(n)
		if cerr != nil && nerr != nil && derr != nil {
			return 0, 0, usageError{fmt.Errorf("unknown fault %q; see --list-faults", n)}
		}
	}
	return faults, ngFaults, nil
}

// deliveryFaults returns the delivery fault switches among names (the
// others are the families', parseFaults).
func deliveryFaults(names []string) core.DeliveryFault {
	var out core.DeliveryFault
	for _, n := range names {
		if f, err := core.ParseDeliveryFault(n); err == nil {
			out |= f
		}
	}
	return out
}

// selectProtocols returns the protocols --protocol names: one, or all of
// them for "all"; anything else is a usage error.
func selectProtocols(name string) ([]string, error) { return selectFrom(allProtocols, name) }

// selectFrom returns the protocols of known that name names: one, or all
// of them for "all"; anything else is a usage error.
func selectFrom(known []string, name string) ([]string, error) {
	if name == "all" {
		return known, nil
	}
	if !slices.Contains(known, name) {
		return nil, usageError{fmt.Errorf("--protocol %q: want one of %s or all", name, strings.Join(known, ", "))}
	}
	return []string{name}, nil
}

// version says what was built: the module version, the commit and whether
// the tree had changes, and the Go version, from the build information.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := bi.Main.Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+changes"
			}
		}
	}
	if rev != "" {
		v += " commit " + rev[:min(12, len(rev))] + modified
	}
	return v + " " + bi.GoVersion
}
