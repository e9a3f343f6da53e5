package list_test

import (
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/ui/list"
)

func Example() {
	l := list.New(list.Options[string, string]{
		Match: func(name, query string) bool { return strings.Contains(name, query) },
		Same:  func(a, b string) bool { return a == b },
	})
	l.SetItems([]string{"echo", "sleep", "slow", "stubborn"})
	l.SetHeight(2)
	l.MoveBy(2) // slow
	l.SetQuery("s")
	from, to := l.Window()
	sel, _ := l.Selected()
	fmt.Println(l.Shown(), "shown; window", from, to, "; selected", sel)
	for i := from; i < to; i++ {
		fmt.Println(l.At(i))
	}
	// Output:
	// 3 shown; window 1 3 ; selected slow
	// slow
	// stubborn
}
