// Command rebalance is the command line of the rebalancing reference.
//
//	rebalance check [flags]      model-check every protocol exhaustively at small bounds
//	rebalance simulate [flags]   sample longer random runs of every protocol
//
// Exit status: 0 when every law holds, 1 when one is violated, 2 on a usage
// error.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// usageError marks errors caused by bad flags or arguments (exit status 2).
type usageError struct{ error }

// violationError marks a run that found a violated law (exit status 1).
var errViolation = errors.New("a law is violated")

func main() {
	root := &cobra.Command{
		Use:           "rebalance",
		Short:         "Executable reference for group rebalancing protocols (Kafka's eager, cooperative, deferred, incremental, next-gen)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newCheckCmd(), newSimulateCmd())
	err := root.Execute()
	var ue usageError
	switch {
	case err == nil:
	case errors.Is(err, errViolation):
		os.Exit(1)
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "rebalance:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "rebalance:", err)
		os.Exit(2)
	}
}
