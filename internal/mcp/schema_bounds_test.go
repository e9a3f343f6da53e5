package mcp

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// A server's schema over the bounds (size, depth) is refused before any
// work is done on it, with a message that says which bound: a 5 MB
// elicitation schema took 15 s of CPU before.
func TestServerSchemasBounded(t *testing.T) {
	var props strings.Builder
	props.WriteString(`{"type":"object","properties":{`)
	for i := 0; props.Len() < 5<<20; i++ {
		if i > 0 {
			props.WriteByte(',')
		}
		props.WriteString(`"p` + strings.Repeat("x", 8) + string(rune('a'+i%26)) + strconv.Itoa(i) + `":{"type":"string","description":"` + strings.Repeat("d", 200) + `"}`)
	}
	props.WriteString(`}}`)
	huge := props.String()
	deep := strings.Repeat(`{"items":`, 200) + `{}` + strings.Repeat(`}`, 200)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseElicitRequest([]byte(`{"message":"m","requestedSchema":`+huge+`}`), ClientFeatures{ElicitForm: true})
	if err == nil || !strings.Contains(err.Error(), "requestedSchema refused") || !strings.Contains(err.Error(), "over the bound of 262144") {
		t.Errorf("a 5 MB requestedSchema: %v; want a refusal naming the bound", err)
	}
	if _, err := ParseElicitRequest([]byte(`{"message":"m","requestedSchema":`+deep+`}`), ClientFeatures{ElicitForm: true}); err == nil ||
		!strings.Contains(err.Error(), "nested over 64 deep") {
		t.Errorf("a 200-deep requestedSchema: %v; want a refusal naming the depth", err)
	}
	tool, err := ParseTool([]byte(`{"name":"t","inputSchema":` + huge + `}`))
	if err != nil || !errors.Is(tool.SchemaErr, toolschema.ErrTooBig) || tool.Schema != nil {
		t.Errorf("a tool with a 5 MB inputSchema: %v, schema error %v; want it listed, its schema refused", err, tool.SchemaErr)
	}
	runtime.ReadMemStats(&after)
	t.Logf("refusing allocated %d MB for %d MB of schema", (after.TotalAlloc-before.TotalAlloc)>>20, len(huge)>>20)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("refusing allocated %d MB; the bounds are to spare the work", alloc>>20)
	}
	if err := toolschema.CheckBounds([]byte(`{"description":"{{{{[[[[ in a string \" {{{{"}`)); err != nil {
		t.Errorf("brackets in strings counted: %v", err)
	}
}
