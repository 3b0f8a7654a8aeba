package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// decode reads a refusal's id and error.
func decode(t *testing.T, resp []byte) (any, Error) {
	t.Helper()
	var r struct {
		ID    any   `json:"id"`
		Error Error `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("refusal %q: %v", resp, err)
	}
	return r.ID, r.Error
}

func TestInspect(t *testing.T) {
	notFound := func(ctx context.Context, method string, params json.RawMessage) *Error {
		if method == "resources/read" {
			return &Error{Code: ResourceNotFound, Message: "resource not found"}
		}
		return nil
	}
	g := Guard{Check: notFound}
	for _, c := range []struct {
		msg  string
		code int
		id   any
		want string // in the message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, nil, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, nil, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, nil, ""},
		{`{not json`, ParseError, nil, "not valid JSON"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"x":1}`, ParseError, nil, "not valid JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}`, ParseError, nil, "not valid JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, InvalidRequest, nil, "batches are allowed only in MCP protocol versions 2024-11-05 and 2025-03-26"},
		{`{"jsonrpc":"2.0","id":7,"method":null}`, InvalidRequest, 7.0, "method must be a string, not null"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, InvalidRequest, nil, "id must be a string or a number, not an object"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, InvalidRequest, nil, "not null"},
		{`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":["a"]}`, InvalidParams, "x", "params of tools/call must be an object"},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"browser:///session/x"}}`, ResourceNotFound, 2.0, "resource not found"},
		{`17`, InvalidRequest, nil, "must be an object"},
	} {
		resp, code := g.Inspect(t.Context(), []byte(c.msg))
		if code != c.code {
			t.Errorf("%s: code %d, want %d (%s)", c.msg, code, c.code, resp)
			continue
		}
		if code == 0 {
			if resp != nil {
				t.Errorf("%s passed with an answer %s", c.msg, resp)
			}
			continue
		}
		id, e := decode(t, resp)
		if id != c.id || e.Code != c.code || !strings.Contains(e.Message, c.want) {
			t.Errorf("%s: answered %s, want id %v code %d and %q", c.msg, resp, c.id, c.code, c.want)
		}
	}
	// A notification that is refused gets no answer.
	if resp, code := g.Inspect(t.Context(), []byte(`{"jsonrpc":"2.0","method":"x","params":[1]}`)); code != InvalidParams || resp != nil {
		t.Errorf("notification with array params: %d %s", code, resp)
	}
}

// TestReader: refused and over-long lines are answered on the writer and
// never reach the reader's consumer; the rest pass unchanged, in order.
func TestReader(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{"text":"` + strings.Repeat("x", 300<<10) + `"}}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[1,2]`,
		long,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	r := Reader(t.Context(), Guard{MaxMessage: 200 << 10}, strings.NewReader(in), NewLockedWriter(&out))
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	if string(got) != want {
		t.Errorf("passed %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("answers: %q", out.String())
	}
	if _, e := decode(t, []byte(lines[0])); e.Code != InvalidRequest || !strings.Contains(e.Message, "batches are not allowed in MCP protocol version (none negotiated yet") {
		t.Errorf("batch answer: %s", lines[0])
	}
	if id, e := decode(t, []byte(lines[1])); e.Code != InvalidRequest || id != 9.0 || !strings.Contains(e.Message, "204800 bytes") {
		t.Errorf("over-long line answer: %s", lines[1])
	}
}

func TestHandler(t *testing.T) {
	var reached []byte
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
	})
	h := Handler(Guard{MaxMessage: 1 << 10}, next)
	post := func(body string) *httptest.ResponseRecorder {
		reached = nil
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", strings.NewReader(body)))
		return w
	}
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if w := post(ok); w.Code != 200 || string(reached) != ok {
		t.Errorf("a valid message: %d, reached %q", w.Code, reached)
	}
	if w := post(`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("y", 2<<10) + `"}`); w.Code != http.StatusRequestEntityTooLarge || reached != nil {
		t.Errorf("too large: %d %s", w.Code, w.Body)
	} else if id, e := decode(t, w.Body.Bytes()); id != 1.0 || e.Code != InvalidRequest {
		t.Errorf("too large: %s", w.Body)
	}
	if w := post(`[]`); w.Code != http.StatusBadRequest || reached != nil {
		t.Errorf("batch: %d %s", w.Code, w.Body)
	}
}
