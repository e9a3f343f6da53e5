package connect

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpoke/mcpoke/internal/savefile"
)

// readSmallFile reads the regular file at path, at most limit bytes; what
// names it in errors ("envFile", "config file"). A FIFO, a device or a
// directory is refused before it is read: a config must not make mcpoke
// wait for a writer or read /dev/zero for ever.
func readSmallFile(what, path string, limit int) ([]byte, error) {
	// Stat before open: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file (it is a %s)", what, path, savefile.Kind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	// Again on the open file: path may have been replaced in between.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file", what, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s %s is over %d bytes; is it the right file?", what, path, limit)
	}
	return data, nil
}
