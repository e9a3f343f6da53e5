package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/diagram"
	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

type diagramFlags struct {
	request  string
	incoming bool
	format   string
	width    int
	settle   time.Duration // --settle, when given
}

func newDiagramCommand(g *globalFlags) *cobra.Command {
	f := &diagramFlags{}
	cmd := &cobra.Command{
		Use:   "diagram FILE.ndjson [--request ID] [--format mermaid|text]",
		Short: "Draw a request's life from a saved transcript, as Mermaid or text",
		Long: `Draw one request's life from an NDJSON transcript (written by call or bench with
--transcript FILE) as a sequence diagram: the request, its progress (long runs collapsed
into one counted arrow), the cancel with its reason, the response or error, and what
came after the cancel, drawn ignored. Requests the server sent meanwhile get their own
arrows.

Without --request it draws the last tools/call in the file, and says on stderr which
other tools/call requests there are. --request takes the id as it was on the wire:
--request 3 is the number 3, --request '"3"' the string "3" (a server can tell them
apart); an id that is not JSON, such as abc, is the string "abc". In a transcript of
mcpoke proxy over HTTP, where the host sessions may use the same ids, --request s2:3
is session s2's request 3, as the card and attach name it; a bare id is the last
request sent with it, in whichever session.

--format mermaid prints a Mermaid sequenceDiagram, the form the MCP specification draws
cancellation in: put it in a ` + "```mermaid" + ` block to render it in a GitHub issue.
--format text (the default) draws it for a terminal, --width columns wide (default 60;
below 40 it becomes a list). Server text is escaped in both.

A transcript does not record the settle window: give the run's --settle to draw it.
A timeout shows from the reason mcpoke sent with its cancel. --request with --incoming
draws a request the server sent (an elicitation, a sampling request) and mcpoke's
answer to it.`,
		Example: `  # Record a cancelled call, then draw it
  mcpoke call sleep --cancel-after 500ms --transcript sleep.ndjson
  mcpoke diagram sleep.ndjson

  # For a bug report
  mcpoke diagram sleep.ndjson --format mermaid

  # A request with the string id "7"
  mcpoke diagram run.ndjson --request '"7"'

  # The server's elicitation 0, and whether mcpoke answered it after its cancel
  mcpoke diagram run.ndjson --request 0 --incoming`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("diagram needs one transcript FILE (written by --transcript)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			render, err := diagramRenderer(f.format, f.width)
			if err != nil {
				return err
			}
			f.settle = g.callSettleWindow()
			return runDiagram(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f, render)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.request, "request", "", `the request's ID as on the wire: 3, or '"3"' for a string (default: the last tools/call)`)
	fl.BoolVar(&f.incoming, "incoming", false, "--request is the id of a request the server sent")
	fl.StringVar(&f.format, "format", "text", "mermaid or text")
	fl.IntVar(&f.width, "width", diagram.DefaultWidth, "columns for --format text")
	return cmd
}

func runDiagram(stdout, stderr io.Writer, path string, f *diagramFlags, render func(diagram.Life) string) error {
	file, err := os.Open(path)
	if err != nil {
		return usageError("%v", err)
	}
	defer file.Close()
	tr, err := diagram.Read(file)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if len(tr.Items) == 0 {
		return usageError("%s is not an mcpoke transcript: no line of it is one (%d skipped)", path, tr.Skipped)
	}
	if tr.Skipped > 0 {
		fmt.Fprintf(stderr, "mcpoke: skipped %d line(s) of %s that are not transcript lines\n", tr.Skipped, path)
	}
	session, request := hostSessionRequest(tr, f.request)
	id := requestID(request)
	if id == "" && f.incoming {
		return usageError("--incoming needs --request ID: which of the server's requests")
	}
	if id == "" {
		sayOtherCalls(stderr, diagram.Requests(tr))
	}
	l, err := diagram.Build(tr, diagram.Options{Request: id, Session: session, Incoming: f.incoming, Settle: f.settle, Relayed: tr.Relayed})
	if errors.Is(err, diagram.ErrNoRequest) {
		return usageError("%v", err)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, render(l))
	return err
}

// requestID is --request as the id's JSON text: a number or a JSON
// string as given, anything else as a string.
func requestID(flag string) string {
	flag = strings.TrimSpace(flag)
	if flag == "" {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(flag), &v) == nil {
		switch v.(type) {
		case float64:
			return flag
		case string:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	b, _ := json.Marshal(flag)
	return string(b)
}

// hostSessionRequest splits --request s2:3 into host session s2 and the
// id 3 when tr is a proxy's transcript with a session s2; any other
// --request is an id, as it was.
func hostSessionRequest(tr diagram.Transcript, flag string) (session, request string) {
	label, id, ok := strings.Cut(strings.TrimSpace(flag), ":")
	if !ok || !tr.Relayed || !proxy.IsSessionLabel(label) {
		return "", flag
	}
	for _, it := range tr.Items {
		if it.Session == label {
			return label, id
		}
	}
	return "", flag
}

// sayOtherCalls tells, when a transcript holds several tools/call
// requests, which one is drawn and how to pick another.
func sayOtherCalls(w io.Writer, reqs []diagram.Request) {
	var ids []string
	for _, r := range reqs {
		if r.Method != "tools/call" {
			continue
		}
		id := r.ID
		if r.Session != "" {
			id = r.Session + ":" + id // as the card and attach name it
		}
		ids = append(ids, termtext.Line(id))
	}
	if len(ids) < 2 {
		return
	}
	last := ids[len(ids)-1]
	if len(ids) > maxIDsListed {
		// A bench transcript has thousands: the first few say the pattern.
		ids = append(ids[:maxIDsListed-1:maxIDsListed-1], "…", last)
	}
	fmt.Fprintf(w, "mcpoke: %d tools/call requests in the transcript (ids %s); drawing the last, %s; pick another with --request ID\n",
		len(reqsCalls(reqs)), strings.Join(ids, ", "), last)
}

// maxIDsListed bounds the ids sayOtherCalls lists.
const maxIDsListed = 8

// reqsCalls are the tools/call requests among reqs.
func reqsCalls(reqs []diagram.Request) []diagram.Request {
	var calls []diagram.Request
	for _, r := range reqs {
		if r.Method == "tools/call" {
			calls = append(calls, r)
		}
	}
	return calls
}

// diagramRenderer checks --format (and --width) and returns the renderer.
func diagramRenderer(format string, width int) (func(diagram.Life) string, error) {
	switch format {
	case "mermaid":
		return diagram.Mermaid, nil
	case "text":
		if width < 1 {
			return nil, usageError("--width must be at least 1")
		}
		return func(l diagram.Life) string { return diagram.Text(l, width) }, nil
	}
	return nil, usageError("--format %s: want mermaid or text", quote(format))
}
