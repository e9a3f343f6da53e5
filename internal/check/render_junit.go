package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// junit is the JUnit XML most CI systems read: one testcase per check. A
// broken MUST is a failure; a broken SHOULD is reported in system-out and
// passes, so that a CI job fails only where the spec says MUST.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, rep *Report) error {
	suite := junitSuite{Name: "mcpoke check " + termtext.Line(rep.Server.Name), Tests: len(rep.Checks),
		Failures: rep.Summary.Fail, Skipped: rep.Summary.Skip, Time: seconds(rep.Ms)}
	for _, c := range rep.Checks {
		body := evidenceText(c)
		tc := junitCase{Name: fmt.Sprintf("%d %s", c.ID, c.Title), ClassName: "mcpoke.check.cancellation", Time: seconds(c.Ms)}
		switch c.Status {
		case Fail:
			tc.Failure = &junitMessage{Message: "MUST: " + c.Sentence, Body: body}
		case Skip:
			tc.Skipped = &junitMessage{Message: termtext.Line(c.Reason)}
		case Warn:
			tc.SystemOut = "WARN (" + string(c.Level) + "): " + c.Sentence + "\n" + body
		default:
			tc.SystemOut = body
		}
		suite.Cases = append(suite.Cases, tc)
	}
	out, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{suite}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, out)
	return err
}

func evidenceText(c Result) string {
	var b strings.Builder
	for _, f := range c.Evidence.Facts {
		b.WriteString("- " + termtext.Line(f) + "\n")
	}
	for _, f := range c.Evidence.Frames {
		b.WriteString(termtext.Line(f.Note) + ": " + termtext.Line(f.Frame) + "\n")
	}
	return b.String()
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
