package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// runMisbehavingServer is an MCP stdio server that answers initialize and
// tools/list properly and then misbehaves in one way, its mode ("MODE" or
// "MODE:N"):
//
//	silent      never answers tools/call
//	diesoncancel never answers tools/call and exits on the first cancel
//	pretty      answers pretty-printed over several lines
//	badutf8     answers with invalid UTF-8 in the result
//	trailing    answers with bytes after the JSON value
//	deep        answers nested 20000 deep
//	oversize    answers with a 33 MiB frame, the id at the end
//	bom         writes a byte-order mark before every frame
//	closeout    closes its stdout on tools/call and lives on
//	stderr:N    writes N stderr lines, then answers
//	progress:N  sends N progress notifications, then answers
//	trickle:N   sends N progress notifications 20ms apart, then answers
//	stray:N     sends N stray responses of 1 MiB, then answers
//	initnoise   answers initialize with only noise, an oversize frame and a BOM
//	pages       tools/list always has a next page
//	manyresources  pages through 1,000,000 resources, 100 pages of 10,000
//	hugepages   pages through 10 pages of 10,000 resources of 3 kB each (30 MB a page)
//	stallpages  sends the first page of 10,000 resources, and never the second
//	hugeinit    answers initialize with 30 MB of instructions and capabilities
//	tricklelist starts its answer to tools/list, then trickles a space
//	            every 50ms and never ends it
//	deafping    never answers ping
//	hugetext    answers tools/call with 22 MB of text (16 MB on one line,
//	            then 6 million empty lines; a 28 MB frame) and
//	            resources/read with a 31 MB blob
//	hugeschema  lists its tool with a 5 MB inputSchema and, on tools/call,
//	            asks elicitation/create with a 5 MB requestedSchema; the
//	            call's answer quotes mcpoke's reply to it
func runMisbehavingServer(mode string) int {
	mode, arg, _ := strings.Cut(mode, ":")
	n, _ := strconv.Atoi(arg)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	var writing sync.Mutex // ignorecancel writes from its calls' goroutines
	write := func(s string) {
		writing.Lock()
		defer writing.Unlock()
		if mode == "bom" && strings.HasPrefix(s, "{") {
			s = "\ufeff" + s
		}
		out.WriteString(s)
		out.Flush()
	}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
				Meta   struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		if mode == "diesoncancel" && msg.Method == "notifications/cancelled" {
			return 3
		}
		if msg.ID == nil {
			continue
		}
		id := string(msg.ID)
		answer := func(result string) { write(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + "}\n") }
		const ok = `{"content":[{"type":"text","text":"ok"}]}`
		switch msg.Method {
		case "initialize":
			if mode == "hugeinit" {
				answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"experimental":{"x":"` + strings.Repeat("c", 15<<20) +
					`"}},"instructions":"` + strings.Repeat("i", 15<<20) + `","serverInfo":{"name":"huge","version":"0"}}`)
				continue
			}
			if mode == "initnoise" {
				write("npm WARN some noise line\n{\"x\":\"" + strings.Repeat("a", 33<<20) + "\"}\n\ufeff\n")
				continue
			}
			answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"misbehaving-` + mode + `","version":"0"}}`)
		case "ping":
			if mode != "deafping" {
				answer(`{}`)
			}
		case "resources/read":
			if mode != "hugetext" {
				answer(`{}`)
				continue
			}
			answer(`{"contents":[{"uri":"x://r","blob":"` + strings.Repeat("QUFB", 31<<20/4-8) + `"}]}`)
		case "resources/list":
			page, _ := strconv.Atoi(msg.Params.Cursor)
			if mode == "stallpages" && page > 0 {
				continue // the second page never comes
			}
			write(resourcesPage(id, mode, page))
		case "tools/list":
			if mode == "tricklelist" {
				write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[`)
				for {
					time.Sleep(50 * time.Millisecond)
					write(" ")
				}
			}
			next := ""
			if mode == "pages" {
				c, _ := strconv.Atoi(msg.Params.Cursor)
				next = fmt.Sprintf(`,"nextCursor":"%d"`, c+1)
			}
			schema := `{"type":"object"}`
			if mode == "hugeschema" {
				schema = hugeSchema()
			}
			answer(`{"tools":[{"name":"t","description":"a tool","inputSchema":` + schema + `}]` + next + `}`)
		case "tools/call":
			switch mode {
			case "hugetext":
				answer(`{"content":[{"type":"text","text":"\u202e` + strings.Repeat("a", 16<<20) + strings.Repeat(`\n`, 6<<20) + `"}]}`)
			case "hugeschema":
				write(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":` + hugeSchema() + "}}\n")
				reply, _ := json.Marshal(awaitResponse(in, `"e1"`))
				answer(`{"content":[{"type":"text","text":` + string(reply) + `}]}`)
			case "silent", "diesoncancel":
			case "pretty":
				write("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": " + id + ",\n  \"result\": {}\n}\n")
			case "badutf8":
				answer(`{"content":[{"type":"text","text":"bad ` + "\xff\xfe" + ` here"}]}`)
			case "trailing":
				write(`{"jsonrpc":"2.0","id":` + id + `,"result":` + ok + "} garbage\n")
			case "deep":
				answer(`{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`)
			case "oversize":
				write(`{"result":{"x":"` + strings.Repeat("a", 33<<20) + `"},"jsonrpc":"2.0","id":` + id + "}\n")
			case "closeout":
				os.Stdout.Close()
				time.Sleep(time.Hour)
			case "stderr":
				w := bufio.NewWriter(os.Stderr)
				for i := range n {
					fmt.Fprintf(w, "line %d\n", i)
				}
				w.Flush()
				time.Sleep(100 * time.Millisecond)
				answer(ok)
			case "progress":
				tok := string(msg.Params.Meta.ProgressToken)
				for i := range n {
					out.WriteString(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok +
						`,"progress":` + strconv.Itoa(i) + `,"message":"step"}}` + "\n")
				}
				answer(ok)
			case "trickle":
				tok := string(msg.Params.Meta.ProgressToken)
				for i := range n {
					time.Sleep(20 * time.Millisecond)
					write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok +
						`,"progress":` + strconv.Itoa(i) + `}}` + "\n")
				}
				answer(ok)
			case "ignorecancel":
				// Works n ms with progress, deaf to cancels, then answers.
				tok := string(msg.Params.Meta.ProgressToken)
				go func() {
					for i := range n / 50 {
						time.Sleep(50 * time.Millisecond)
						write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok +
							`,"progress":` + strconv.Itoa(i+1) + `}}` + "\n")
					}
					answer(ok)
				}()
			case "iserror":
				answer(`{"content":[{"type":"text","text":"no such city"}],"isError":true}`)
			case "stray":
				big := strings.Repeat("a", 1<<20)
				for i := range n {
					write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"x":"%s"}}`+"\n", 100000+i, big))
				}
				answer(ok)
			default:
				answer(ok)
			}
		default:
			answer(`{}`)
		}
	}
	return 0
}

// hugeSchema is a 5 MB object schema of 20,000-odd string properties.
func hugeSchema() string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; b.Len() < 5<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","description":"%s"}`, i, strings.Repeat("d", 200))
	}
	b.WriteString(`}}`)
	return b.String()
}

// awaitResponse reads lines until the response to the server's request
// id, and returns it ("" when stdin ends first).
func awaitResponse(in *bufio.Scanner, id string) string {
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) == nil && m.Method == "" && string(m.ID) == id {
			return in.Text()
		}
	}
	return ""
}

// misbehavingSpec runs the test binary as runMisbehavingServer in mode.
func misbehavingSpec(t testing.TB, mode string) connect.Spec {
	spec := hostileSpec(t)
	spec.Name = mode
	spec.Env = []string{hostileServerEnv + "=" + mode}
	return spec
}

// resourcesPage is page (from 0) of the resources manyresources and
// hugepages list: 10,000 a page, the next cursor until the last.
func resourcesPage(id, mode string, page int) string {
	pages, desc := 100, "r"
	if mode == "hugepages" {
		pages, desc = 10, strings.Repeat("d", 3000)
	}
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resources":[`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"uri":"demo://r/%d/%d","name":"r%d","description":"%s"}`, page, i, i, desc)
	}
	b.WriteString(`]`)
	if page+1 < pages {
		fmt.Fprintf(&b, `,"nextCursor":"%d"`, page+1)
	}
	b.WriteString("}}\n")
	return b.String()
}
