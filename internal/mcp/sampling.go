package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// SamplingRequest is the params of sampling/createMessage, read once for
// whoever answers it: the TUI's panel shows every field, a headless policy
// needs none. Strings are the server's, raw: sanitize where shown.
type SamplingRequest struct {
	Messages         []SamplingMessage
	SystemPrompt     string
	ModelPreferences *ModelPreferences
	// MaxTokens is required by the spec; 0 when the server left it out.
	MaxTokens      int
	Temperature    *float64
	StopSequences  []string
	IncludeContext string
	// Tools are offered for the model to call (sampling with tools); mcpoke
	// does not declare sampling.tools, so a server should send none.
	Tools []json.RawMessage
	// Task is set when the server asked for the work to run as a task.
	Task *RequestedTask
	Raw  json.RawMessage
}

// SamplingMessage is one message of the conversation to continue.
type SamplingMessage struct {
	Role string
	// Content holds the message's blocks: one, or several.
	Content []ContentBlock
}

// ContentBlock is one block of content (text, image, audio, tool use or
// result, a resource), with the fields worth showing read out.
type ContentBlock struct {
	Type     string
	Text     string
	MimeType string
	// DataLen is the length of base64 data (images, audio), which is not
	// shown.
	DataLen int
	Raw     json.RawMessage
}

// ModelPreferences are the server's hints about which model to use.
type ModelPreferences struct {
	Hints                []string
	CostPriority         *float64
	SpeedPriority        *float64
	IntelligencePriority *float64
}

// RequestedTask is a request's task field: run me as a task, kept ttl ms.
type RequestedTask struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// ParseSamplingRequest reads sampling/createMessage params. It fails, with
// an error to answer as -32602, only when they are not an object or lack
// messages.
func ParseSamplingRequest(raw json.RawMessage) (SamplingRequest, error) {
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string `json:"systemPrompt"`
		ModelPreferences *struct {
			Hints []struct {
				Name string `json:"name"`
			} `json:"hints"`
			CostPriority         *float64 `json:"costPriority"`
			SpeedPriority        *float64 `json:"speedPriority"`
			IntelligencePriority *float64 `json:"intelligencePriority"`
		} `json:"modelPreferences"`
		MaxTokens      json.Number       `json:"maxTokens"`
		Temperature    *float64          `json:"temperature"`
		StopSequences  []string          `json:"stopSequences"`
		IncludeContext string            `json:"includeContext"`
		Tools          []json.RawMessage `json:"tools"`
		Task           *RequestedTask    `json:"task"`
	}
	r := SamplingRequest{Raw: raw}
	if err := json.Unmarshal(raw, &p); err != nil {
		return r, invalidParams("sampling/createMessage: %v", err)
	}
	if p.Messages == nil {
		return r, invalidParams("sampling/createMessage: params have no messages")
	}
	for _, m := range p.Messages {
		r.Messages = append(r.Messages, SamplingMessage{Role: m.Role, Content: readContent(m.Content)})
	}
	r.SystemPrompt, r.Temperature, r.StopSequences = p.SystemPrompt, p.Temperature, p.StopSequences
	r.IncludeContext, r.Tools, r.Task = p.IncludeContext, p.Tools, p.Task
	if n, err := p.MaxTokens.Int64(); err == nil {
		r.MaxTokens = int(n)
	}
	if mp := p.ModelPreferences; mp != nil {
		r.ModelPreferences = &ModelPreferences{CostPriority: mp.CostPriority, SpeedPriority: mp.SpeedPriority,
			IntelligencePriority: mp.IntelligencePriority}
		for _, h := range mp.Hints {
			r.ModelPreferences.Hints = append(r.ModelPreferences.Hints, h.Name)
		}
	}
	return r, nil
}

// readContent reads a message's content: one block or an array of them.
func readContent(raw json.RawMessage) []ContentBlock {
	raw = bytes.TrimSpace(raw)
	var blocks []json.RawMessage
	if len(raw) > 0 && raw[0] == '[' {
		_ = json.Unmarshal(raw, &blocks)
	} else if len(raw) > 0 {
		blocks = []json.RawMessage{raw}
	}
	out := make([]ContentBlock, 0, len(blocks))
	for _, b := range blocks {
		var c struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
		}
		_ = json.Unmarshal(b, &c)
		out = append(out, ContentBlock{Type: c.Type, Text: c.Text, MimeType: c.MimeType, DataLen: len(c.Data), Raw: b})
	}
	return out
}

// SamplingModel is the model name mcpoke's answers give: no model wrote
// them.
const SamplingModel = "mcpoke (no model: written by a person)"

// SamplingText is the CreateMessageResult of a text reply.
func SamplingText(text, model string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Role    string `json:"role"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Model      string `json:"model"`
		StopReason string `json:"stopReason"`
	}{Role: "assistant", Content: struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", text}, Model: model, StopReason: "endTurn"})
	return b
}

// CodeSamplingRejected is the error the spec gives for a sampling request
// the user rejected.
const CodeSamplingRejected = -1

// SamplingDeclined is the answer to a sampling request the user declined.
func SamplingDeclined(why string) *session.RPCError {
	msg := "User rejected sampling request"
	if why != "" {
		msg += ": " + why
	}
	return &session.RPCError{Code: CodeSamplingRejected, Message: msg}
}

func invalidParams(format string, a ...any) *session.RPCError {
	return &session.RPCError{Code: session.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}
