package diagram_test

import (
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/diagram"
)

// A cancelled call whose server answered anyway, drawn from its
// transcript.
func ExampleMermaid() {
	tr, _ := diagram.Read(strings.NewReader(`{"t":10,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stubborn"}}}
{"t":310,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"enough"}}}
{"t":1010,"dir":"in","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[]}},"note":"late"}
`))
	l, err := diagram.Build(tr, diagram.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(diagram.Mermaid(l))
	// Output:
	// sequenceDiagram
	//     participant mcpoke
	//     participant server
	//     Note over mcpoke,server: tools/call stubborn · request 3
	//     Note left of mcpoke: +0ms
	//     mcpoke->>server: tools/call stubborn (id 3)
	//     Note left of mcpoke: +300ms
	//     mcpoke--)server: notifications/cancelled (id 3) #quot;enough#quot;
	//     rect rgba(128, 128, 128, 0.12)
	//     Note over mcpoke,server: after the cancel: traffic for request 3 is ignored
	//     Note left of mcpoke: +1.00s
	//     server--xmcpoke: result · ignored (cancel +700ms)
	//     end
	//     Note over mcpoke,server: cancelled at +300ms · the server answered anyway, 700ms after the cancel
}
