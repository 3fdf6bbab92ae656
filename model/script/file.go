package script

import (
	"strings"
)

// File runs the command lines with run, in order, and returns them as a
// scenario file in the format the scenario tests read (the datadriven
// format: the command, a line "----", its output, a blank line), with the
// comment lines first. A command that fails records "error: ..." as its
// output, as the scenario tests do, and the file goes on.
func File(comment []string, lines []string, run func(cmd string, args []Arg) (string, error)) (string, error) {
	var b strings.Builder
	for _, c := range comment {
		b.WriteString(strings.TrimRight("# "+c, " ") + "\n")
	}
	if len(comment) > 0 {
		b.WriteString("\n")
	}
	for _, line := range lines {
		cmd, args, err := ParseLine(line)
		if err != nil {
			return "", err
		}
		out := Output(run, cmd, args)
		b.WriteString(line + "\n----\n")
		if strings.Contains(out, "\n\n") {
			// datadriven needs a double separator around output with
			// blank lines.
			b.WriteString("----\n" + out + "----\n----\n\n")
			continue
		}
		b.WriteString(out + "\n")
	}
	return b.String(), nil
}

// Output runs one command with run and returns what a scenario file
// records for it: its output, and "error: ..." after it when it failed.
// The scenario tests compare each command's Output with the file's.
func Output(run func(cmd string, args []Arg) (string, error), cmd string, args []Arg) string {
	out, err := run(cmd, args)
	if err != nil {
		out += "error: " + err.Error() + "\n"
	}
	return out
}
