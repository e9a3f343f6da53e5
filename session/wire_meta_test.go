package session

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// withMeta gives the same object as decoding params, setting the members
// in _meta and encoding it again, whatever path it takes.
func TestWithMetaMatchesADecode(t *testing.T) {
	members := []byte(`"progressToken":7,"x":{"y":1}`)
	for _, params := range []string{
		``,
		`{}`,
		`{"a":1}`,
		`{"_meta":{"old":true},"a":[1,{"_meta":2}]}`,
		`{"_meta":{"progressToken":1},"b":"s"}`,
		`{"s":"\"_meta\" inside a string","n":{"_meta":{"deep":1}}}`,
		`{"\u005fmeta":{"escaped":1},"a":2}`,
		`{"_meta":null,"a":3}`,
		`{"_meta":{"first":1},"_meta":{"second":2}}`,
		` { "a" : 1 , "_meta" : { "k" : "v" } } `,
	} {
		got, err := withMeta(json.RawMessage(params), members)
		if err != nil {
			t.Errorf("%s: %v", params, err)
			continue
		}
		want := map[string]any{}
		if strings.TrimSpace(params) != "" {
			_ = json.Unmarshal([]byte(params), &want)
		}
		meta, _ := want["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["progressToken"], meta["x"] = 7.0, map[string]any{"y": 1.0}
		want["_meta"] = meta
		var have map[string]any
		if err := json.Unmarshal(got, &have); err != nil {
			t.Errorf("%s: gave %s, not JSON: %v", params, got, err)
			continue
		}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("%s:\n gave %s\n want %v", params, got, want)
		}
	}
}

// Adding _meta to megabytes of params that already have one (a
// requestState round's retry) rewrites only the _meta object: about one
// copy of the params is allocated, not the three of a whole decode and
// encode (which made a doubling requestState's peak memory).
func TestWithMetaDoesNotDecodeLargeParams(t *testing.T) {
	state := strings.Repeat("s", 8<<20)
	params := []byte(`{"name":"t","arguments":{},"requestState":"` + state + `","_meta":{"k":1}}`)
	members := []byte(`"progressToken":3`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := withMeta(params, members)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(params))*3/2 {
		t.Errorf("withMeta allocated %d bytes for %d bytes of params; want about one copy", alloc, len(params))
	}
	if !strings.HasSuffix(string(got), `"_meta":{"k":1,"progressToken":3}}`) || !strings.Contains(string(got), state) {
		t.Errorf("gave %.80s…%s", got, got[len(got)-60:])
	}
}
