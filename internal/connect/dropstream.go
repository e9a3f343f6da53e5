package connect

import "github.com/mcpoke/mcpoke/session"

// DropRequestStream breaks the connection carrying request id's response
// stream as a network failure would, leaving the request pending: the
// transport resumes the stream with GET and Last-Event-ID. It returns the
// event id resumed from, or transport.ErrNoRequestStream or
// transport.ErrNotResumable. For mcpoke check: a dropped stream is not a
// cancel under the 2025 versions.
func (c *Conn) DropRequestStream(id session.ID) (lastEventID string, err error) {
	return c.tap.DropRequestStream([]byte(id.String()))
}
