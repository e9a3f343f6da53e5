// Package savefile writes a file the user named with contents a server
// sent: never through a symbolic link (dangling or not), never over an
// existing file unless told to, and then only over a regular file.
package savefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists means the path names something already and overwriting was not
// asked for.
var ErrExists = errors.New("the file exists")

// ErrNotRegular means the path names a symbolic link, a directory or a device,
// which is never written, not even when overwriting.
var ErrNotRegular = errors.New("not a regular file")

// Check says, before anything is sent, whether Write may write path:
// nil when nothing is there, or, with overwrite, a regular file.
func Check(path string, overwrite bool) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	return refusal(path, st, overwrite)
}

// refusal says why path, found with st, may not be written.
func refusal(path string, st fs.FileInfo, overwrite bool) error {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; mcpoke never writes through one: %w (give another name)", path, ErrNotRegular)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is a %s, %w: give another name", path, Kind(st.Mode()), ErrNotRegular)
	case !overwrite:
		return fmt.Errorf("%s: %w; give another name, or --force to replace it", path, ErrExists)
	}
	return nil
}

// Kind names what a path that is not a regular file is, for messages
// that refuse it: "directory", "FIFO", "character device" and so on.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// Write writes data to path. Without overwrite the file is created
// exclusively (O_EXCL, which also refuses any symbolic link there); with
// overwrite, an existing regular file is replaced by a temporary file
// renamed over it, so that a link swapped in meanwhile is replaced, not
// followed.
func Write(path string, data []byte, overwrite bool) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writeNew(path, data)
	case err != nil:
		return err
	}
	if err := refusal(path, st, overwrite); err != nil {
		return err
	}
	return replace(path, data, st.Mode().Perm())
}

// writeNew creates path, which must not exist, and writes data.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared meanwhile: %w; give another name", path, ErrExists)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // ours: created exclusively above
	}
	return err
}

// replace writes data to a temporary file beside path and renames it
// over path, keeping path's permissions.
func replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // gone after the rename; there on failure
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(name, path)
}
