package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// listenPrinter writes listen's events as they happen: escaped lines, or
// with --json one object per line (NDJSON), escaped as every --json is.
type listenPrinter struct {
	w    io.Writer
	json bool
}

// event writes one NDJSON line: {"event": kind, ...fields}, event first.
func (p listenPrinter) event(kind string, fields map[string]any) {
	rest, err := json.Marshal(fields)
	if err != nil {
		return
	}
	head, _ := json.Marshal(map[string]string{"event": kind})
	line := append(head[:len(head)-1:len(head)-1], ',')
	_ = writeJSON(p.w, json.RawMessage(append(line, rest[1:]...)), nil)
}

func (l *listenRun) printServer() {
	peer := serverOf(l.srv.Peer())
	if l.out.json {
		l.out.event("server", map[string]any{"server": peer})
		return
	}
	fmt.Fprintf(l.out.w, "server    %s %s, protocol %s\n", termtext.Line(peer.Name), termtext.Line(peer.Version), peer.protocolText())
}

// listen says what was opened: a subscriptions/listen (modern), or what
// stands for one before 2026-07-28.
func (p listenPrinter) listen(id session.ID, f mcp.ListenFilter, modern bool) {
	if p.json {
		fields := map[string]any{"asked": f, "method": "subscriptions/listen"}
		if modern {
			fields["requestId"] = id
		} else {
			fields["method"] = nil
			fields["note"] = "no subscriptions/listen before 2026-07-28: list changes come unasked; resources/subscribe for each resource"
		}
		p.event("listen", fields)
		return
	}
	if modern {
		fmt.Fprintf(p.w, "listen    subscriptions/listen (request %s): %s\n", id, termtext.Line(f.Describe()))
		return
	}
	fmt.Fprintf(p.w, "listen    %s\n", termtext.Line(f.Describe()))
	fmt.Fprintln(p.w, "          (this protocol has no subscriptions/listen: list changes come unasked, and each resource is followed with resources/subscribe)")
}

// acknowledged shows the server's acknowledgement and what it declined.
func (p listenPrinter) acknowledged(at float64, ack, declined mcp.ListenFilter, err error) {
	if p.json {
		fields := map[string]any{"atMs": at, "notifications": ack}
		if !declined.Empty() {
			fields["declined"] = declined
		}
		if err != nil {
			fields["error"] = err.Error()
		}
		p.event("acknowledged", fields)
		return
	}
	if err != nil {
		fmt.Fprintf(p.w, "%-9s acknowledged, unreadably: %s\n", "+"+human(at), termtext.Line(err.Error()))
		return
	}
	fmt.Fprintf(p.w, "%-9s acknowledged: %s\n", "+"+human(at), termtext.Line(ack.Describe()))
	if !declined.Empty() {
		fmt.Fprintf(p.w, "          declined: %s (the server will not send them)\n", termtext.Line(declined.Describe()))
	}
}

// subscribed shows a resources/subscribe or resources/unsubscribe.
func (p listenPrinter) subscribed(at float64, method, uri string, err error) {
	if p.json {
		fields := map[string]any{"atMs": at, "method": method, "uri": uri}
		if err != nil {
			fields["error"] = err.Error()
		}
		p.event("subscribe", fields)
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "failed: " + termtext.Line(err.Error())
	}
	fmt.Fprintf(p.w, "%-9s %s %s: %s\n", "+"+human(at), method, termtext.Line(uri), outcome)
}

// notification shows one notification the listen delivered.
func (p listenPrinter) notification(at float64, method string, params json.RawMessage, tagged bool) {
	if p.json {
		fields := map[string]any{"atMs": at, "method": method}
		if len(params) > 0 && json.Valid(params) {
			fields["params"] = params
		}
		p.event("notification", fields)
		return
	}
	detail := ""
	if uri, err := mcp.ParseResourceUpdated(params); method == mcp.ResourceUpdated && err == nil {
		detail = " " + uri
	} else if rest := compactParams(params); len(rest) > 0 {
		detail = " " + termtext.ClipRunes(string(rest), 200)
	}
	fmt.Fprintf(p.w, "%-9s %s%s\n", "+"+human(at), termtext.Line(method), termtext.Line(detail))
}

// untagged shows a change notification that named no subscription: in
// 2026-07-28 one comes only on a listen, tagged with its id.
func (p listenPrinter) untagged(at float64, method string) {
	const why = "names no subscription: in protocol 2026-07-28 change notifications come only on a subscriptions/listen, tagged with its id; ignored"
	if p.json {
		p.event("untagged", map[string]any{"atMs": at, "method": method, "note": why})
		return
	}
	fmt.Fprintf(p.w, "%-9s %s %s\n", "+"+human(at), termtext.Line(method), why)
}

// violation shows a rule the server broke.
func (p listenPrinter) violation(at float64, v session.Violation) {
	if p.json {
		p.event("violation", map[string]any{"atMs": at, "kind": v.Kind.String(), "detail": v.Detail})
		return
	}
	fmt.Fprintf(p.w, "%-9s violation %s: %s\n", "+"+human(at), v.Kind, termtext.Line(v.Detail))
}

// stderr shows a line the server wrote on its stderr.
func (p listenPrinter) stderr(at float64, line string) {
	if p.json {
		p.event("stderr", map[string]any{"atMs": at, "line": line})
		return
	}
	fmt.Fprintf(p.w, "%-9s stderr  %s\n", "+"+human(at), termtext.Line(line))
}

// end says how the listen ended, the last line.
func (p listenPrinter) end(at float64, e listenEnd, count int, acked, modern bool) {
	if p.json {
		fields := map[string]any{"atMs": at, "endedBy": e.by, "reason": e.reason, "notifications": count, "failed": e.failed}
		if modern {
			fields["acknowledged"] = acked
		}
		if e.cancel != "" {
			fields["cancel"] = e.cancel
		}
		p.event("end", fields)
		return
	}
	text := "after " + english.Plural(count, "notification") + ": "
	switch e.by {
	case "mcpoke":
		text += "stopped by mcpoke (" + e.reason + ")"
		switch e.cancel {
		case "":
		case "stream closed":
			text += "; the listen cancelled by closing its stream (the era's cancel over HTTP; nothing sent)"
		case "notification":
			text += "; the listen cancelled with notifications/cancelled (the era's cancel on stdio)"
		default:
			text += "; cancel: " + e.cancel
		}
	default:
		text += termtext.Line(e.reason)
	}
	if modern && !acked {
		text += "; the server never acknowledged the listen (notifications/subscriptions/acknowledged must come first)"
	}
	fmt.Fprintf(p.w, "ended     %s\n", text)
}
