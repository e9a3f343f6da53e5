package transport

import "fmt"

// MaxSessionIDLen bounds the Mcp-Session-Id mcpoke keeps and sends back
// on every request. The spec fixes no length; real servers use UUIDs and
// JWTs, far below it.
const MaxSessionIDLen = 1024

// checkSessionID refuses a session id the transport spec forbids: it
// "MUST only contain visible ASCII characters (ranging from 0x21 to
// 0x7E)". Such an id (controls, bidi or tag characters) would be echoed
// on every request and written into records.
func checkSessionID(sid string) error {
	if len(sid) > MaxSessionIDLen {
		return fmt.Errorf("the server's Mcp-Session-Id is %d bytes, over mcpoke's bound of %d: refusing the session", len(sid), MaxSessionIDLen)
	}
	for i := 0; i < len(sid); i++ {
		if c := sid[i]; c < 0x21 || c > 0x7e {
			return fmt.Errorf("the server's Mcp-Session-Id holds byte 0x%02x at offset %d; the spec allows only visible ASCII (0x21-0x7E): refusing the session", c, i)
		}
	}
	return nil
}
