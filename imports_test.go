package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// importGroup is where an import belongs: the groups come in this order,
// each alone between blank lines.
type importGroup int

const (
	groupStd importGroup = iota
	groupThirdParty
	groupMcpoke
)

func groupOf(path string) importGroup {
	switch first, _, _ := strings.Cut(path, "/"); {
	case path == module || strings.HasPrefix(path, module+"/"):
		return groupMcpoke
	case strings.Contains(first, "."):
		return groupThirdParty
	default:
		return groupStd
	}
}

// TestImportGroups keeps every file's imports in three groups —
// standard library, third party, mcpoke — in that order. goimports
// sorts within a group but leaves a misplaced group where it is.
func TestImportGroups(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range strings.Fields(string(out)) {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var lines []int
		var groups []importGroup
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			lines = append(lines, fset.Position(spec.Pos()).Line)
			groups = append(groups, groupOf(path))
		}
		if msg := importGroupProblem(lines, groups); msg != "" {
			t.Errorf("%s: %s (run goimports -local %s after joining the import block)", name, msg, module)
		}
	}
}

// importGroupProblem says what is wrong with imports at these lines
// belonging to these groups, or "" when nothing is.
func importGroupProblem(lines []int, groups []importGroup) string {
	for i := 1; i < len(lines); i++ {
		sameBlock := lines[i] == lines[i-1]+1
		switch {
		case groups[i] < groups[i-1]:
			return fmt.Sprintf("line %d: group %d after group %d", lines[i], groups[i], groups[i-1])
		case sameBlock && groups[i] != groups[i-1]:
			return fmt.Sprintf("line %d: groups %d and %d share a block", lines[i], groups[i-1], groups[i])
		case !sameBlock && groups[i] == groups[i-1]:
			return fmt.Sprintf("line %d: group %d split in two", lines[i], groups[i])
		}
	}
	return ""
}

func TestImportGroupProblemCatchesEachMistake(t *testing.T) {
	for _, tc := range []struct {
		lines  []int
		groups []importGroup
		ok     bool
	}{
		{[]int{3, 4, 6, 8}, []importGroup{groupStd, groupStd, groupThirdParty, groupMcpoke}, true},
		{[]int{3, 5}, []importGroup{groupMcpoke, groupStd}, false},
		{[]int{3, 4}, []importGroup{groupStd, groupMcpoke}, false},
		{[]int{3, 5}, []importGroup{groupStd, groupStd}, false},
	} {
		if got := importGroupProblem(tc.lines, tc.groups); (got == "") != tc.ok {
			t.Errorf("lines %v groups %v: %q", tc.lines, tc.groups, got)
		}
	}
}
