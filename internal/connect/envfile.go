package connect

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// maxEnvFile bounds what an envFile may hold: it is a few keys, and a
// config must not make mcpoke read a device.
const maxEnvFile = 1 << 20

// readEnvFile reads a dotenv file, as VS Code reads a server's "envFile":
// KEY=VALUE lines, # comments, an optional "export ", and values in
// single quotes (kept as written) or double quotes (\n, \t, \" and \\
// unescaped).
func readEnvFile(path string) (map[string]string, error) {
	data, err := readSmallFile("envFile", path, maxEnvFile)
	if err != nil {
		return nil, err
	}
	return parseEnvFile(data, path)
}

func parseEnvFile(data []byte, path string) (map[string]string, error) {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	sc.Buffer(nil, maxEnvFile+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf("envFile %s line %d: want KEY=VALUE", path, n)
		}
		v, err := envValue(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("envFile %s line %d: %w", path, n, err)
		}
		env[key] = v
	}
	return env, sc.Err()
}

func envValue(v string) (string, error) {
	switch {
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return v[1 : len(v)-1], nil
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		s, err := strconv.Unquote(v)
		if err != nil {
			return "", fmt.Errorf("bad double-quoted value %s", v)
		}
		return s, nil
	case strings.HasPrefix(v, "'") || strings.HasPrefix(v, `"`):
		return "", fmt.Errorf("unterminated quote in %s", v)
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i]) // a comment after an unquoted value
	}
	return v, nil
}
