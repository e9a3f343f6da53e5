package toolschema

import (
	"bytes"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Problem is one validation failure, placed for a form: Field is the
// top-level argument it is about ("" for the whole object) and Message
// says what is wrong, with the path below Field when there is one. The
// text comes from the schema and the server: sanitize before display.
type Problem struct {
	Field   string
	Message string
}

// Problems checks args against the schema and returns every failure; a
// missing required argument is reported on its own field.
func (s *Schema) Problems(args []byte) []Problem {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []Problem{{Message: "not JSON: " + err.Error()}}
	}
	err = s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	for _, e := range leaves(ve, nil) {
		msg := e.ErrorKind.LocalizedString(printer)
		if req, ok := e.ErrorKind.(*kind.Required); ok && len(e.InstanceLocation) == 0 {
			for _, m := range req.Missing {
				out = append(out, Problem{Field: m, Message: "required"})
			}
			continue
		}
		field := ""
		if len(e.InstanceLocation) > 0 {
			field = e.InstanceLocation[0]
			if len(e.InstanceLocation) > 1 {
				msg = "at /" + strings.Join(e.InstanceLocation[1:], "/") + ": " + msg
			}
		}
		out = append(out, Problem{Field: field, Message: msg})
	}
	return out
}
