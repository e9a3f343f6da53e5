package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// The modes and answers of elicitation/create.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"

	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitRequest is the params of elicitation/create, read once. Strings
// are the server's, raw: sanitize where shown.
type ElicitRequest struct {
	// Mode is "form" or "url"; "form" when the server left it out, as the
	// spec says.
	Mode    string
	Message string
	// RequestedSchema is form mode's schema as sent; Schema the same read
	// once (properties in order) and Compiled for checking an answer
	// (nil, with SchemaErr, when it does not compile).
	RequestedSchema json.RawMessage
	Schema          InputSchema
	Compiled        *toolschema.Schema
	SchemaErr       error
	// URL and ElicitationID are url mode's.
	URL           string
	ElicitationID string
	// Task is set when the server asked for the work to run as a task.
	Task *RequestedTask
	Raw  json.RawMessage
}

// ParseElicitRequest reads elicitation/create params. A mode the client
// did not declare (f), or one missing what it needs, is an error to answer
// as -32602, as the spec says.
func ParseElicitRequest(raw json.RawMessage, f ClientFeatures) (ElicitRequest, error) {
	return parseElicit(raw, f, true)
}

// parseElicit reads elicitation/create params; needID says url mode needs
// an elicitationId, which the 2026-07-28 shape (in inputRequests) has not.
func parseElicit(raw json.RawMessage, f ClientFeatures, needID bool) (ElicitRequest, error) {
	var p struct {
		Mode            *string         `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		URL             string          `json:"url"`
		ElicitationID   string          `json:"elicitationId"`
		Task            *RequestedTask  `json:"task"`
	}
	r := ElicitRequest{Raw: raw}
	if err := json.Unmarshal(raw, &p); err != nil {
		return r, invalidParams("elicitation/create: %v", err)
	}
	r.Mode, r.Message, r.URL, r.ElicitationID, r.Task = ElicitModeForm, p.Message, p.URL, p.ElicitationID, p.Task
	if p.Mode != nil {
		r.Mode = *p.Mode
	}
	switch r.Mode {
	case ElicitModeForm:
		if !f.ElicitForm {
			return r, invalidParams("elicitation/create: mcpoke did not declare form mode elicitation")
		}
		if s := bytes.TrimSpace(p.RequestedSchema); len(s) == 0 || string(s) == "null" {
			return r, invalidParams("elicitation/create: form mode needs a requestedSchema")
		}
		if err := toolschema.CheckBounds(p.RequestedSchema); err != nil {
			return r, invalidParams("elicitation/create: requestedSchema refused: %v", err)
		}
		r.RequestedSchema = p.RequestedSchema
		r.Schema = ReadInputSchema(p.RequestedSchema)
		r.Compiled, r.SchemaErr = toolschema.Compile(p.RequestedSchema)
	case ElicitModeURL:
		if !f.ElicitURL {
			return r, invalidParams("elicitation/create: mcpoke did not declare url mode elicitation")
		}
		if p.URL == "" || (needID && p.ElicitationID == "") {
			return r, invalidParams("elicitation/create: url mode needs a url and an elicitationId")
		}
		// javascript: or file: is a URL too: shown with a warning, never
		// opened (URLOpenable).
		if u, err := url.Parse(p.URL); err != nil || u.Scheme == "" {
			return r, invalidParams("elicitation/create: url %q is not a valid URL", clip(p.URL, 200))
		}
	default:
		return r, invalidParams("elicitation/create: unknown mode %q (form or url)", clip(r.Mode, 40))
	}
	return r, nil
}

// ElicitResult is an ElicitResult: the action, and for accept in form mode
// the content.
func ElicitResult(action string, content json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content,omitempty"`
	}{action, content})
	return b
}

// Defaults is the content a form starts with: every property's default
// (SEP-1034: clients pre-populate fields with them), in schema order; {}
// when none has one.
func (r ElicitRequest) Defaults() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, p := range r.Schema.Properties {
		if p.Default == nil {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		name, _ := json.Marshal(p.Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(p.Default)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// CheckContent checks accepted content against the requested schema; nil
// when the schema could not be compiled (it is sent unchecked).
func (r ElicitRequest) CheckContent(content json.RawMessage) error {
	if r.Compiled == nil {
		return nil
	}
	return r.Compiled.Validate(content)
}

// URLWarnings say what a person should know before opening an elicitation
// URL, as the spec asks clients to warn: the host to check, a URL that is
// not https, a host in punycode (a look-alike), and user info before the
// host ("https://bank.com@evil.example" goes to evil.example).
func URLWarnings(raw string) (host string, warnings []string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", []string{"not a valid URL"}
	}
	host = u.Hostname()
	if err := URLOpenable(raw); err != nil {
		warnings = append(warnings, err.Error())
	} else if u.Scheme != "https" {
		warnings = append(warnings, "not https: "+u.Scheme)
	}
	for _, label := range strings.Split(host, ".") {
		if strings.HasPrefix(strings.ToLower(label), "xn--") {
			warnings = append(warnings, "the host is in punycode: it may imitate another name")
			break
		}
	}
	if u.User != nil {
		warnings = append(warnings, "user info before the host: the URL goes to "+host+", not to "+u.User.Username())
	}
	return host, warnings
}

// URLOpenable says whether mcpoke may hand a server's URL to a browser:
// https, or http to this machine. Anything else (javascript:, file:,
// data:, a custom scheme, plain http elsewhere) is only ever shown,
// escaped, with this error as its warning.
func URLOpenable(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid URL; mcpoke never opens it")
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https" && u.Host != "":
		return nil
	case scheme == "http" && isLoopbackHost(u.Hostname()):
		return nil
	case scheme == "http":
		return errors.New("plain http to another machine; mcpoke never opens it (only https, or http to this machine)")
	default:
		return fmt.Errorf("scheme %q; mcpoke never opens it (only https, or http to this machine)", clip(scheme, 40))
	}
}

// isLoopbackHost: localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
