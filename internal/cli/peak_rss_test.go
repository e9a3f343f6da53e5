package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// peakRSSEnv names the hostile scenario TestPeakRSSChild runs in a fresh
// test process, so that the peak it prints is that scenario's alone.
const peakRSSEnv = "MCPOKE_TEST_PEAK_RSS"

// peakRSSBound is the bound on mcpoke's peak RSS, whatever a
// server sends.
const peakRSSBound = 200

// peakRSSScenarios are the hostile servers whose cost in memory is
// bounded, each as a command run against it; each says what is wrong
// when the command did not go through what makes the server costly, or
// did not bound it.
var peakRSSScenarios = map[string]func(t *testing.T) error{
	"doubling-text":      func(t *testing.T) error { return doublingReachesRound10(t, false) },
	"doubling-json":      func(t *testing.T) error { return doublingReachesRound10(t, true) },
	"list-manyresources": func(t *testing.T) error { return listIsCut(t, "manyresources") },
	"list-hugepages":     func(t *testing.T) error { return listIsCut(t, "hugepages") },
	"hugeinit":           hugeInitListsTools,
	"hugetext-call":      func(t *testing.T) error { return hugeTextShown(t, "call", false) },
	"hugetext-call-json": func(t *testing.T) error { return hugeTextShown(t, "call", true) },
	"hugetext-read":      func(t *testing.T) error { return hugeTextShown(t, "read", false) },
	"hugetext-read-json": func(t *testing.T) error { return hugeTextShown(t, "read", true) },
	"hugeschema": func(t *testing.T) error {
		_, _, err := hugeSchemaCall(t)
		return err
	},
}

// TestPeakRSSChild is the subprocess of childPeakRSS: it runs one
// scenario and prints this process's peak RSS, then fails if the
// scenario went wrong (the peak is worth seeing either way).
func TestPeakRSSChild(t *testing.T) {
	name := os.Getenv(peakRSSEnv)
	if name == "" {
		t.Skip("run by childPeakRSS")
	}
	run, ok := peakRSSScenarios[name]
	if !ok {
		t.Fatalf("no peak-RSS scenario %q", name)
	}
	err := run(t)
	os.Stdout.WriteString("\npeakRSS-MB " + strconv.FormatFloat(peakRSSMB(t), 'f', 1, 64) + "\n")
	if err != nil {
		t.Fatal(err)
	}
}

// childPeakRSS runs scenario in a fresh test process and returns its peak
// RSS in MB; a scenario that went wrong fails tb.
func childPeakRSS(tb testing.TB, scenario string) float64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), peakRSSEnv+"="+scenario, hostileServerEnv+"=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Errorf("%s: subprocess: %v\n%.3000s", scenario, err, out)
	}
	_, rest, ok := strings.Cut(string(out), "peakRSS-MB ")
	if !ok {
		tb.Fatalf("%s: subprocess printed no peak:\n%.3000s", scenario, out)
	}
	mb, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
	if err != nil {
		tb.Fatal(err)
	}
	return mb
}

// benchPeakRSS reports the peak RSS of scenario over b.N fresh processes.
func benchPeakRSS(b *testing.B, scenario string) {
	peak := 0.0
	for range b.N {
		peak = max(peak, childPeakRSS(b, scenario))
	}
	b.ReportMetric(peak, "peakRSS-MB")
}

// Whatever these servers send, mcpoke's peak RSS stays under 200 MB: ten
// doubling requestState rounds (32 MB in round 10), a million resources
// in 100 pages, ten pages of 30 MB, a 30 MB initialize result, 5 MB
// schemas (a tool's and an elicitation's), a 31 MB tool result or
// resource, in text and --json. Each runs
// in a process of its own, so that one's peak is not another's. Before
// their bounds: 264 MB (doubling), about 1,100 MB and 2,700 MB (the
// lists, seen with the list caps lifted), 137 MB (initialize).
func TestHostileServersPeakRSS(t *testing.T) {
	if raceEnabled {
		t.Skip("-race multiplies memory by five to ten: the bound is measured without it (go test ./... runs it)")
	}
	if testing.Short() {
		t.Skip("-short: each scenario sends mcpoke tens of megabytes")
	}
	for _, name := range []string{"doubling-text", "doubling-json", "list-manyresources", "list-hugepages", "hugeinit", "hugeschema",
		"hugetext-call", "hugetext-call-json", "hugetext-read", "hugetext-read-json"} {
		if mb := childPeakRSS(t, name); mb > peakRSSBound {
			t.Errorf("%s: peak RSS %.0f MB; want under %d MB", name, mb, peakRSSBound)
		} else {
			t.Logf("%s: peak RSS %.0f MB", name, mb)
		}
	}
}

// listIsCut lists the resources of misbehaving mode (as --json): the list
// must be cut at the cap, exit 1.
func listIsCut(t *testing.T, mode string) error {
	var out, errOut bytes.Buffer
	err := runResources(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, mode), "", true, testTimeouts)
	if code := exitStatus(err); code != ExitFailed || !strings.Contains(out.String(), `"incomplete"`) {
		return fmt.Errorf("%s: exit %d (%v); want 1 with the list cut:\n%.500s", mode, code, err, errOut.String())
	}
	return nil
}

// hugeInitListsTools lists the tools of a server whose initialize result
// is 30 MB: the list must come.
func hugeInitListsTools(t *testing.T) error {
	var out, errOut bytes.Buffer
	if err := runTools(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "hugeinit"), "", true, testTimeouts); err != nil {
		return fmt.Errorf("tools against a 30 MB initialize: %v\n%.500s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"name":"t"`) {
		return fmt.Errorf("no tool listed:\n%.500s", out.String())
	}
	return nil
}

// hugeTextShown calls t or reads x://r on misbehaving mode hugetext, in
// text or --json: it must complete, and the text report must end with
// the note of a text cut short.
func hugeTextShown(t *testing.T, command string, asJSON bool) error {
	var out, errOut bytes.Buffer
	f := callFlags{json: asJSON, timeoutFlags: testTimeouts}
	var err error
	if command == "call" {
		err = runCall(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "hugetext"), "t", &f)
	} else {
		err = runRead(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "hugetext"), "x://r", &readFlags{callFlags: f})
	}
	if err != nil {
		return fmt.Errorf("%s: %v\n%.500s", command, err, errOut.String())
	}
	if command == "call" && !asJSON && !strings.Contains(out.String(), "… cut here: 22.0 MB in 6,291,457 lines in all") {
		return fmt.Errorf("call's report does not say the text was cut:\n%.300s", out.String()[max(0, out.Len()-300):])
	}
	return nil
}
