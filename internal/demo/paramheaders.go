package demo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// checkParamHeaders is the demo's half of the x-mcp-header rule: a
// tools/call's Mcp-Param headers must carry exactly what its tool's marks
// ask for, with the values of the arguments.
func (srv *server) checkParamHeaders(frame []byte, got map[string]string) error {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Method != "tools/call" {
		return nil
	}
	t := srv.find(m.Params.Name)
	if t == nil {
		return nil // answered by tools/call itself
	}
	args := m.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	want, err := mcp.ParamHeaders(t.Tool, args)
	if err != nil {
		return err
	}
	for name, v := range want {
		switch g, ok := got[strings.ToLower(name)]; {
		case !ok:
			return fmt.Errorf("the Mcp-Param-%s header is missing; the %s tool marks it with x-mcp-header", name, t.Name)
		case g != v:
			return fmt.Errorf("Mcp-Param-%s header %q does not match the argument %q", name, g, v)
		}
	}
	return nil
}
