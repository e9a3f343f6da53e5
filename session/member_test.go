package session

import (
	"encoding/json"
	"testing"
)

// member must find what encoding/json finds, without decoding the rest.
func TestMemberAgreesWithEncodingJSON(t *testing.T) {
	objs := []string{
		`{"name":"echo","arguments":{"name":"inner","x":[1,{"name":"deep"}]}}`,
		`{"arguments":{"text":"a\"b}"},"name":"echo"}`,
		` { "name" : "sp aced" , "x" : 1 } `,
		`{"name":"first","name":"last"}`,
		`{"na\u006de":"escaped key"}`,
		`{"name":"esc\"aped \u00e9"}`,
		`{"name":7}`,
		`{"_meta":{"progressToken":12},"name":"sleep"}`,
		`{"_meta":{"progressToken":"tok"}}`,
		`{"_meta":{"other":{"progressToken":1}}}`,
		`{"_meta":null}`,
		`{"text":"{\"name\":\"fake\"}"}`,
		`{}`,
		`[]`,
		`"name"`,
		``,
	}
	for _, o := range objs {
		var want struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal([]byte(o), &want)
		if got := stringMember([]byte(o), "name"); got != want.Name {
			t.Errorf("stringMember(%s, name) = %q, encoding/json says %q", o, got, want.Name)
		}
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal([]byte(o), &p)
		wantID, wantOK := ParseID(p.Meta.ProgressToken)
		gotID, gotOK := progressTokenOf([]byte(o))
		if gotOK != (wantOK == nil && p.Meta.ProgressToken != nil) || gotID != wantID && gotOK {
			t.Errorf("progressTokenOf(%s) = %v %v, encoding/json says %v %v", o, gotID, gotOK, wantID, wantOK)
		}
	}
}

func FuzzMember(f *testing.F) {
	f.Add([]byte(`{"name":"echo","arguments":{"name":"x"}}`))
	f.Add([]byte(`{"a":[1,"]"],"name":"b\"c"}`))
	f.Fuzz(func(t *testing.T, obj []byte) {
		if !json.Valid(obj) {
			_ = member(obj, "name") // must not panic
			return
		}
		var want struct {
			Name json.RawMessage `json:"name"`
		}
		if json.Unmarshal(obj, &want) != nil {
			return // not an object
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil {
			return
		}
		// encoding/json matches keys case-insensitively for structs; the
		// map holds the exact key, which is what JSON-RPC means.
		got := member(obj, "name")
		if string(got) != string(m["name"]) {
			t.Fatalf("member(%s) = %s, want %s", obj, got, m["name"])
		}
	})
}
