package connect

// stripJSONC turns JSON with comments and trailing commas, as VS Code
// writes mcp.json and settings.json, into plain JSON. Comments become
// spaces, so offsets in later JSON errors still point at the right place.
func stripJSONC(in []byte) []byte {
	out := make([]byte, len(in))
	copy(out, in)
	pendingComma := -1 // index of a comma that may turn out to be trailing
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			pendingComma = -1
			i = skipString(out, i)
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		case c == ',':
			pendingComma = i
		case c == '}' || c == ']':
			if pendingComma >= 0 {
				out[pendingComma] = ' '
			}
			pendingComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			pendingComma = -1
		}
	}
	return out
}

// skipString returns the index of the quote that closes the string
// opening at i, or the last index if it never closes.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b) - 1
}
