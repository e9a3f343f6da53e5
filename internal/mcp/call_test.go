package mcp

import (
	"encoding/json"
	"testing"
)

func TestReadCallResult(t *testing.T) {
	for _, tc := range []struct {
		raw             string
		isError, failed bool
		content         int
	}{
		{raw: `{"content":[{"type":"text","text":"hi"}]}`, content: 1},
		{raw: `{"content":[],"isError":true}`, isError: true},
		{raw: `{}`},
		{raw: `null`},
		{raw: `[1]`, failed: true},
		{raw: `{"isError":"yes"}`, failed: true},
	} {
		r, err := ReadCallResult(json.RawMessage(tc.raw))
		if (err != nil) != tc.failed || r.IsError != tc.isError || len(r.Content) != tc.content {
			t.Errorf("ReadCallResult(%s) = %+v, %v; want isError %v, %d blocks, failed %v",
				tc.raw, r, err, tc.isError, tc.content, tc.failed)
		}
	}
}
