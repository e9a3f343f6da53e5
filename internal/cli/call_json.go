package cli

import "strconv"

// textWarnings flags the report's strings that hold invalid UTF-8, which
// encoding/json would replace silently. Most come decoded from JSON and
// are valid already; the server's stderr lines and failures that quote
// its bytes may not be.
func (r *callReport) textWarnings() []jsonWarning {
	var ws []jsonWarning
	ws = flagInvalidText(ws, "/tool", r.Tool)
	ws = flagInvalidText(ws, "/uri", r.URI)
	ws = flagInvalidText(ws, "/prompt", r.Prompt)
	if r.Error != nil {
		ws = flagInvalidText(ws, "/error/message", r.Error.Message)
	}
	for i, p := range r.Progress {
		ws = flagInvalidText(ws, "/progress/"+strconv.Itoa(i)+"/message", p.Message)
	}
	if r.Cancel != nil {
		ws = flagInvalidText(ws, "/cancel/reason", r.Cancel.Reason)
	}
	ws = append(ws, r.Server.textWarnings()...)
	for i, l := range r.Stderr {
		ws = flagInvalidText(ws, "/stderr/"+strconv.Itoa(i), l)
	}
	return append(ws, r.connectionReport.textWarnings()...)
}

// textWarnings flags the server's strings that hold invalid UTF-8.
func (s reportServer) textWarnings() []jsonWarning {
	var ws []jsonWarning
	ws = flagInvalidText(ws, "/server/name", s.Name)
	ws = flagInvalidText(ws, "/server/version", s.Version)
	ws = flagInvalidText(ws, "/server/protocolVersion", s.ProtocolVersion)
	return flagInvalidText(ws, "/server/negotiation", s.Negotiation)
}
