package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzGuard: whatever arrives, Inspect does not panic, a refusal is one
// valid JSON-RPC error response, and the stdio Reader passes exactly the
// lines Inspect passes, unchanged, answering each of the others at most
// once.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"type","arguments":{"text":"x"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"browser:///session/x"}}`,
		`{"id":1,"result":{}}`, `null`, `"x"`, `{`, "",
	} {
		f.Add([]byte(s))
	}
	check := func(ctx context.Context, method string, params json.RawMessage) *Error {
		if method == "resources/read" {
			return &Error{Code: ResourceNotFound, Message: "resource not found"}
		}
		return nil
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		g := Guard{MaxMessage: 64 << 10, Check: check}
		resp, code := g.Inspect(t.Context(), msg)
		if code == 0 && resp != nil {
			t.Fatalf("passed with an answer: %s", resp)
		}
		if resp != nil {
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *Error          `json:"error"`
			}
			if err := json.Unmarshal(resp, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != code {
				t.Fatalf("refusal %s of %q is not a JSON-RPC error with code %d", resp, msg, code)
			}
		}
		if bytes.ContainsAny(msg, "\n\r") {
			return
		}
		var out bytes.Buffer
		got, err := io.ReadAll(Reader(t.Context(), g, bytes.NewReader(append(msg, '\n')), NewLockedWriter(&out)))
		if err != nil {
			t.Fatal(err)
		}
		passed := code == 0 && len(bytes.TrimSpace(msg)) > 0
		if passed != (len(got) > 0) || (passed && string(got) != string(msg)+"\n") {
			t.Fatalf("Reader passed %q of %q (Inspect: %d)", got, msg, code)
		}
		if n := strings.Count(out.String(), "\n"); n > 1 || (resp != nil) != (n == 1) {
			t.Fatalf("Reader answered %q for %q (Inspect: %s)", out.String(), msg, resp)
		}
	})
}
