package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// askInputs asks on the terminal for the ${input:ID} values the server's
// config uses, as VS Code does when it starts the server: before the TUI
// takes the screen. Passwords are read without echo.
func askInputs(spec connect.Spec, in *os.File, out io.Writer) (connect.Spec, error) {
	if len(spec.Inputs) == 0 {
		return spec, nil
	}
	values := map[string]string{}
	lines := bufio.NewReader(in)
	for _, input := range spec.Inputs {
		v, err := askInput(input, in, lines, out)
		if err != nil {
			return connect.Spec{}, fmt.Errorf("input %s for server %q: %w", input.ID, spec.Name, err)
		}
		values[input.ID] = v
	}
	return spec.WithInputs(values)
}

func askInput(input connect.Input, in *os.File, lines *bufio.Reader, out io.Writer) (string, error) {
	prompt := input.Description
	if prompt == "" {
		prompt = input.ID
	}
	prompt = termtext.Line(prompt)
	if len(input.Options) > 0 {
		prompt += " (" + termtext.Line(strings.Join(input.Options, ", ")) + ")"
	}
	if input.Default != "" && !input.Password {
		prompt += " [" + termtext.Line(input.Default) + "]"
	}
	fmt.Fprintf(out, "%s: ", prompt)
	var v string
	if input.Password {
		b, err := term.ReadPassword(in.Fd())
		fmt.Fprintln(out)
		if err != nil {
			return "", err
		}
		v = string(b)
	} else {
		line, err := lines.ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			return "", err
		}
		v = strings.TrimRight(line, "\r\n")
	}
	if v == "" {
		v = input.Default
	}
	if len(input.Options) > 0 && !slices.Contains(input.Options, v) {
		return "", fmt.Errorf("%q is not one of its options", v)
	}
	return v, nil
}
