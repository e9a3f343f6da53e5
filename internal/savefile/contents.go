package savefile

import (
	"encoding/json"
	"errors"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// Contents is what ReadContents saved.
type Contents struct {
	// Bytes is how many bytes were written.
	Bytes int
	// Of is how many items the contents had; only the first is saved.
	Of int
}

// ReadContents saves the first item of a resources/read result (a blob
// decoded) to path with Write: both `read --out` and the TUI's save go
// through here.
func ReadContents(result json.RawMessage, path string, overwrite bool) (Contents, error) {
	res, err := mcp.ReadReadResult(result)
	if err != nil {
		return Contents{}, err
	}
	if len(res.Contents) == 0 {
		return Contents{}, errors.New("nothing to save: the contents are empty")
	}
	c := res.Contents[0]
	saved := Contents{Of: len(res.Contents)}
	if c.BlobErr != nil {
		return saved, c.BlobErr
	}
	if err := Write(path, c.Bytes(), overwrite); err != nil {
		return saved, err
	}
	saved.Bytes = c.Size()
	return saved, nil
}
