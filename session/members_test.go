package session

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Members reads every member of an object, in order, as encoding/json
// does, escapes and duplicates left as sent; anything not an object is
// refused and a truncated one is not Complete.
func TestMembersAgreeWithEncodingJSON(t *testing.T) {
	for _, o := range []string{
		`{"name":"echo","arguments":{"name":"inner","x":[1,{"name":"deep"}]}}`,
		`{"arguments":{"text":"a\"b}"},"name":"echo","n":-1.5e3,"t":true,"z":null}`,
		` { "name" : "sp aced" ,` + "\n\t" + `"x" : [ 1 , 2 ] } `,
		`{"_meta":{"progressToken":12},"name":"sleep"}`,
		`{"text":"{\"name\":\"fake\"}"}`,
		`{}`,
		` { } `,
	} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(o), &obj); err != nil {
			t.Fatal(err)
		}
		m, ok := ReadMembers([]byte(o))
		if !ok {
			t.Fatalf("ReadMembers(%s) refused an object", o)
		}
		n := 0
		for {
			key, escaped, v, ok := m.Next()
			if !ok {
				break
			}
			n++
			if escaped || string(v) != string(obj[string(key)]) {
				t.Errorf("%s: member %q = %s (escaped %v), encoding/json says %s", o, key, v, escaped, obj[string(key)])
			}
		}
		if n != len(obj) || !m.Complete() {
			t.Errorf("%s: read %d members (complete %v), want %d", o, n, m.Complete(), len(obj))
		}
	}
	m, _ := ReadMembers([]byte(`{"na\u006de":1,"name":2,"name":3}`))
	var keys []string
	for {
		key, escaped, v, ok := m.Next()
		if !ok {
			break
		}
		keys = append(keys, string(key)+"="+string(v)+map[bool]string{true: "!"}[escaped])
	}
	if got := len(keys); got != 3 || keys[0] != `na\u006de=1!` || keys[2] != "name=3" {
		t.Errorf("escaped and repeated keys: %q", keys)
	}
	for _, o := range []string{`[]`, `"x"`, ``, `  `, `null`} {
		if _, ok := ReadMembers([]byte(o)); ok {
			t.Errorf("ReadMembers(%q) took it for an object", o)
		}
	}
	for _, o := range []string{`{"a":1`, `{"a":1,`, `{"a"`, `{"a" 1}`, `{"a":1 "b":2}`} {
		m, _ := ReadMembers([]byte(o))
		for {
			if _, _, _, ok := m.Next(); !ok {
				break
			}
		}
		if m.Complete() {
			t.Errorf("%q: Complete", o)
		}
	}
}

// An object read as Inner and then Resumed leaves the outer reading
// where Value would: at the next member.
func TestMembersInnerResume(t *testing.T) {
	o := []byte(`{"a":1, "_meta" : { "x":[1,{"y":"}"}] , "z":{} } ,"b":{},"c":[{}]}`)
	m, _ := ReadMembers(o)
	var got []string
	for {
		key, _, ok := m.NextKey()
		if !ok {
			break
		}
		inner, isObj := m.Inner()
		if !isObj {
			got = append(got, string(key)+"="+string(m.Value()))
			continue
		}
		n := 0
		for {
			if _, _, _, ok := inner.Next(); !ok {
				break
			}
			n++
		}
		if !m.Resume(&inner) {
			t.Fatalf("%s: Resume refused a complete object", key)
		}
		got = append(got, string(key)+"="+strconv.Itoa(n))
	}
	if want := "a=1 _meta=2 b=0 c=[{}]"; strings.Join(got, " ") != want || !m.Complete() {
		t.Errorf("read %q (complete %v), want %q", got, m.Complete(), want)
	}
	m, _ = ReadMembers([]byte(`{"_meta":{"x":1,"y":2},"b":1}`))
	m.NextKey()
	inner, _ := m.Inner()
	inner.Next() // stops before the end
	if m.Resume(&inner) {
		t.Error("Resume went on after an object read only in part")
	}
}
