package cli

import (
	"bytes"
	"unicode/utf8"
)

// mayHaveIsError reports whether encoding/json could find an isError
// member in res: false only for plain ASCII without escapes in which no
// "isError" appears in any case (encoding/json matches keys without
// case, and a non-ASCII key may fold to it, as ſ folds to s).
func mayHaveIsError(res []byte) bool {
	key := []byte(`"iserror"`)
	for i, c := range res {
		if c >= utf8.RuneSelf || c == '\\' {
			return true
		}
		if c == '"' && i+len(key) <= len(res) && bytes.EqualFold(res[i:i+len(key)], key) {
			return true
		}
	}
	return false
}
