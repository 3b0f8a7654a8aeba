package mcpcheck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
)

// recorder is a testing.TB that records the failures it is told of
// instead of failing the test, so that a test can fail on purpose.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// serve starts an in-process server with one tool, "attr", whose output
// schema says value is a string, and which returns out as its result.
func serve(t *testing.T, out *mcp.CallToolResult) *client.Client {
	t.Helper()
	srv := server.NewMCPServer("check", "test")
	tool := mcp.NewTool("attr", mcp.WithRawOutputSchema(json.RawMessage(
		`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)))
	srv.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return out, nil })
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(t.Context(), mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func structured(v string) *mcp.CallToolResult {
	return mcp.NewToolResultStructured(json.RawMessage(v), v)
}

// TestCheck makes calls whose results match the schema, and calls whose
// results do not: each mismatch must fail the test and come back as an
// error, as the TypeScript SDK's -32602 does.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		want string // part of the failure; "" when the result matches
	}{
		{"matches", structured(`{"value":"a","extra":1}`), ""},
		{"null where the schema says string", structured(`{"value":null}`), "does not match"},
		{"a required field missing", structured(`{}`), "does not match"},
		{"no structuredContent", mcp.NewToolResultText("a"), "no structuredContent"},
		{"an error with our JSON and no structuredContent", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(`{"errorCode":"TIMEOUT","message":"m"}`)}}, ""},
		{"an error without our JSON", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent("failed")}}, "no error JSON"},
		// The TypeScript SDK validates an error's structuredContent too and
		// throws -32602 on the mismatch, hiding the error from the agent.
		{"an error whose structuredContent is the error object", &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"errorCode": "TIMEOUT"},
			Content: []mcp.Content{mcp.NewTextContent(`{"errorCode":"TIMEOUT","message":"m"}`)}}, "does not match"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			cl := mcpcheck.Wrap(rec, serve(t, c.res))
			_, err := cl.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "attr"}})
			if c.want == "" {
				if err != nil || len(rec.errors) > 0 {
					t.Fatalf("a matching result was refused: %v %q", err, rec.errors)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("call error = %v, want one saying %q", err, c.want)
			}
			if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], c.want) {
				t.Errorf("test failures = %q, want one saying %q", rec.errors, c.want)
			}
		})
	}
}

// TestCompileRefusesBadSchema: a schema that is not JSON Schema is an
// error, not a check that passes everything.
func TestCompileRefusesBadSchema(t *testing.T) {
	if _, err := mcpcheck.Compile([]byte(`[{"name":"x","outputSchema":{"type":"object","properties":{"a":{"type":"strin"}}}}]`)); err == nil {
		t.Fatal("a schema with an unknown type compiled")
	}
}

// TestCheckAgainstGoldenSchema: a server lists no output schemas by
// default, and a tool listed without one is checked against its golden
// schema all the same (get_attribute's: value is a string or null, and
// exists is required).
func TestCheckAgainstGoldenSchema(t *testing.T) {
	for _, c := range []struct {
		res  *mcp.CallToolResult
		want string // part of the failure; "" when the result matches
	}{
		{structured(`{"value":null,"exists":false}`), ""},
		{structured(`{"value":5,"exists":true}`), "does not match"},
		{mcp.NewToolResultText("a"), "no structuredContent"},
	} {
		srv := server.NewMCPServer("check", "test")
		srv.AddTool(mcp.NewTool("get_attribute"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil })
		cl, err := client.NewInProcessClient(srv)
		if err != nil {
			t.Fatal(err)
		}
		cl.Start(t.Context())
		if _, err := cl.Initialize(t.Context(), mcp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{TB: t}
		_, err = mcpcheck.Wrap(rec, cl).CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "get_attribute"}})
		cl.Close()
		switch {
		case c.want == "" && (err != nil || len(rec.errors) > 0):
			t.Errorf("%v: a matching result was refused: %v %q", c.res.StructuredContent, err, rec.errors)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: call error = %v, want one saying %q", c.res.StructuredContent, err, c.want)
		}
	}
}
