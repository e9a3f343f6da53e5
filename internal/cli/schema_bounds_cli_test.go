package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// hugeSchemaCall calls t on misbehaving mode hugeschema, answering
// elicitations with their defaults, and returns the text report.
func hugeSchemaCall(t testing.TB) (out, errOut string, err error) {
	g := testGlobals()
	g.client.elicit = "accept-defaults"
	var o, e bytes.Buffer
	err = runCall(testContext(t), &o, &e, g, misbehavingSpec(t, "hugeschema"), "t", &callFlags{timeoutFlags: testTimeouts})
	return o.String(), e.String(), err
}

// A server whose tool has a 5 MB inputSchema and whose call asks an
// elicitation with a 5 MB requestedSchema: the call ends within seconds
// (the elicitation alone took 15 s of CPU before the bounds), the tool's
// arguments go unchecked with a warning that says why, and the
// elicitation is refused with -32602, naming the bound.
func TestHugeServerSchemasRefusedEndToEnd(t *testing.T) {
	start := time.Now()
	out, errOut, err := hugeSchemaCall(t)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("call: %v\n%s\n%s", err, out, errOut)
	}
	if took > 8*time.Second && !raceEnabled { // -race slows the 10 MB of JSON read and written several times over
		t.Errorf("the call took %s; the schemas are to be refused before any work", took)
	}
	for _, want := range []string{"-32602", "requestedSchema refused", "over the bound of 262144"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server's quote of mcpoke's reply lacks %q:\n%.2000s", want, out)
		}
	}
	if !strings.Contains(out, `elicitation/create (id "e1"): failed: "elicitation/create: requestedSchema refused: schema over mcpoke's bounds: `) {
		t.Errorf("the report does not say why the elicitation failed:\n%.2000s", out)
	}
	if !strings.Contains(out+errOut, "not checking arguments: the t tool's") {
		t.Errorf("no warning that t's arguments go unchecked:\n%.1000s\n%.1000s", out, errOut)
	}
}

// BenchmarkHugeServerSchemas times a call through a 5 MB inputSchema and
// a 5 MB elicitation schema (the whole command, server included):
//
//	go test ./internal/cli -run '^$' -bench HugeServerSchemas -benchtime 3x
func BenchmarkHugeServerSchemas(b *testing.B) {
	for range b.N {
		if _, _, err := hugeSchemaCall(b); err != nil {
			b.Fatal(err)
		}
	}
}
