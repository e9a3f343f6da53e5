package cli

import (
	"bytes"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/diagram"
	"github.com/mcpoke/mcpoke/internal/transcript"
)

// callDiagram keeps the transcript of a call's run in memory and draws
// it: call --diagram shows exactly what `mcpoke diagram` draws from the
// file --transcript writes, and the CLI never reads frames itself.
type callDiagram struct {
	render func(diagram.Life) string

	mu  sync.Mutex
	buf bytes.Buffer
}

// newCallDiagram checks --diagram; nil when it is not given.
func newCallDiagram(format string) (*callDiagram, error) {
	if format == "" {
		return nil, nil
	}
	render, err := diagramRenderer(format, diagram.DefaultWidth)
	if err != nil {
		return nil, usageError("--diagram %s: want mermaid or text", quote(format))
	}
	return &callDiagram{render: render}, nil
}

// watch records c's wire from its first frame.
func (d *callDiagram) watch(c *connect.Conn) {
	c.Observe(transcript.New(d, c.Started()).Observe)
}

// Write implements io.Writer for the transcript writer.
func (d *callDiagram) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.buf.Write(p)
}

// draw renders the call's request, with the session's settle window;
// "" when the run cannot be drawn.
func (d *callDiagram) draw(id string, f *callFlags, settle time.Duration) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	tr, err := diagram.Read(bytes.NewReader(d.buf.Bytes()))
	if err != nil {
		return ""
	}
	l, err := diagram.Build(tr, diagram.Options{Request: id, WaitLate: f.waitLate, Settle: settle})
	if err != nil {
		return ""
	}
	return d.render(l)
}
