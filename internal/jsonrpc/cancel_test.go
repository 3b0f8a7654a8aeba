package jsonrpc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestStdioDropsCancelledAnswersAndLateProgress: the answer to a request
// the client cancelled is not written, nor is progress of a request
// already answered; everything else is.
func TestStdioDropsCancelledAnswersAndLateProgress(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t5"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t6"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	w := NewLockedWriter(&out)
	if _, err := io.ReadAll(Reader(t.Context(), Guard{}, strings.NewReader(in), w)); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t6","progress":0}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"isError":true}}`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t6","progress":1}}`,
	} {
		w.Write([]byte(m + "\n"))
	}
	want := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t6","progress":0}}` + "\n" + `{"jsonrpc":"2.0","id":6,"result":{}}` + "\n"
	if out.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestStdioBatch: after an initialize at 2025-03-26, a batch reaches
// mcp-go as one line a message, its requests under ids of ours, and their
// answers go out as one array under the client's ids; a refused message
// is answered in the array.
func TestStdioBatch(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
		`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1]}]` + "\n"
	var out bytes.Buffer
	w := NewLockedWriter(&out)
	got, err := io.ReadAll(Reader(t.Context(), Guard{}, strings.NewReader(in), w))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "notifications/x") {
		t.Fatalf("passed %q", got)
	}
	var ping struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(lines[1]), &ping)
	if ping.ID == "a" || ping.ID == "" {
		t.Fatalf("the ping kept the client's id: %s", lines[1])
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":"` + ping.ID + `","result":{}}` + "\n"))
	var answers []map[string]any
	if err := json.Unmarshal(out.Bytes(), &answers); err != nil || len(answers) != 2 {
		t.Fatalf("answered %q", out.String())
	}
	ids := map[any]bool{answers[0]["id"]: true, answers[1]["id"]: true}
	if !ids["a"] || !ids[2.0] {
		t.Errorf("answers: %v", answers)
	}
}

// TestStdioBatchCancel: a cancellation of a request of a batch reaches
// mcp-go under the id the request reached it with, and the batch's answer
// leaves that request out.
func TestStdioBatchCancel(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}]` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n"
	var out bytes.Buffer
	w := NewLockedWriter(&out)
	got, err := io.ReadAll(Reader(t.Context(), Guard{}, strings.NewReader(in), w))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 4 {
		t.Fatalf("passed %q", got)
	}
	var ping, call struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(lines[1]), &ping)
	json.Unmarshal([]byte(lines[2]), &call)
	if !strings.Contains(lines[3], `"requestId":"`+call.ID+`"`) {
		t.Fatalf("the cancellation %s does not name %s", lines[3], call.ID)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":"` + call.ID + `","result":{}}` + "\n"))
	if out.Len() != 0 {
		t.Fatalf("answered before the ping: %s", out.String())
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":"` + ping.ID + `","result":{}}` + "\n"))
	if out.String() != `[{"id":1,"jsonrpc":"2.0","result":{}}]`+"\n" {
		t.Errorf("answered %s", out.String())
	}
}
