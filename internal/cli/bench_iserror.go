package cli

import "unicode/utf8"

// mayHaveIsError reports whether encoding/json could find an isError
// member in res: false only for plain ASCII without escapes in which no
// "isError" appears in any case (encoding/json matches keys without
// case, and a non-ASCII key may fold to it, as ſ folds to s).
func mayHaveIsError(res []byte) bool {
	const key = `"iserror"`
	for i, c := range res {
		if c >= utf8.RuneSelf || c == '\\' {
			return true
		}
		if i+len(key) <= len(res) && lowerASCII(c) == key[0] && equalFoldASCII(res[i:i+len(key)], key) {
			return true
		}
	}
	return false
}

func equalFoldASCII(b []byte, lower string) bool {
	for i := range len(lower) {
		if lowerASCII(b[i]) != lower[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
