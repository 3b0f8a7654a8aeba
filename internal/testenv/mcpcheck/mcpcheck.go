// Package mcpcheck holds the tests' MCP clients to what official clients
// check: every successful tools/call result must carry structuredContent
// that validates against the output schema its tool declared in
// tools/list, as the TypeScript SDK demands before it hands a result to
// its caller (it throws -32602 otherwise). The SDK validates the
// structuredContent of error results too, so an error result must carry
// none (or one that matches), and ours must carry our error JSON, with its
// errorCode, in its text. Tests wrap their client with Wrap, and every
// call they make is checked with a real JSON Schema validator; a mismatch
// fails the test.
//
// A server lists its output schemas only with --output-schemas (decision
// record docs/decisions/2026-11-27-lean-tools-list.md). A tool listed
// without one is checked against its golden schema
// (testdata/golden/tools/NAME.json, which the tools package holds to the
// code), so that every result matches the schema a validating client
// would be given, whatever the server under test was told.
package mcpcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Client is an MCP client whose CallTool checks every result against its
// tool's output schema. Its other methods are the wrapped client's.
type Client struct {
	*client.Client
	t testing.TB

	mu      sync.Mutex
	schemas Schemas // nil until tools/list has been read
}

// Wrap returns c checking its calls on behalf of t.
func Wrap(t testing.TB, c *client.Client) *Client {
	return &Client{Client: c, t: t}
}

// CallTool calls the tool and checks a successful result against the
// tool's output schema. A mismatch fails the test and, as an official
// client would, comes back as an error with the result.
func (c *Client) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.t.Helper()
	res, err := c.Client.CallTool(ctx, req)
	if err != nil || res == nil {
		return res, err
	}
	schemas, err := c.listed(ctx)
	if err == nil {
		err = schemas.Check(req.Params.Name, res)
	}
	if err != nil {
		c.t.Errorf("tools/call %s: %v", req.Params.Name, err)
		return res, err
	}
	return res, nil
}

// listed reads tools/list once, through the wrapped client: the schemas
// are those the server declares to this client.
func (c *Client) listed(ctx context.Context) (Schemas, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.schemas != nil {
		return c.schemas, nil
	}
	var all []mcp.Tool
	req := mcp.ListToolsRequest{}
	for {
		page, err := c.Client.ListTools(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("reading tools/list to check the result: %w", err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		req.Params.Cursor = page.NextCursor
	}
	raw, err := withGolden(all)
	if err != nil {
		return nil, err
	}
	s, err := Compile(raw)
	if err != nil {
		return nil, err
	}
	c.schemas = s
	return s, nil
}

// withGolden encodes tools as tools/list does, each with the output
// schema the server listed or else its golden one.
func withGolden(tools []mcp.Tool) ([]byte, error) {
	gold, err := goldenSchemas()
	if err != nil {
		return nil, err
	}
	var list []map[string]json.RawMessage
	b, err := json.Marshal(tools)
	if err == nil {
		err = json.Unmarshal(b, &list)
	}
	if err != nil {
		return nil, err
	}
	for _, tl := range list {
		var name string
		json.Unmarshal(tl["name"], &name)
		if s := tl["outputSchema"]; (len(s) == 0 || string(s) == "null") && gold[name] != nil {
			tl["outputSchema"] = gold[name]
		}
	}
	return json.Marshal(list)
}

// goldenSchemas reads the output schema of every tool in
// testdata/golden/tools, by name, once.
var goldenSchemas = sync.OnceValues(func() (map[string]json.RawMessage, error) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "golden", "tools")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no golden tool schemas in %s", dir)
	}
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var tl struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(b, &tl); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		m[strings.TrimSuffix(filepath.Base(f), ".json")] = tl.OutputSchema
	}
	return m, nil
})

// Schemas are the compiled output schemas of a server's tools, by name.
type Schemas map[string]*jsonschema.Schema

// Compile compiles the output schema of every tool in tools, the JSON
// array of a tools/list result. A schema that is not valid JSON Schema
// (2020-12, MCP's default dialect) is an error.
func Compile(tools []byte) (Schemas, error) {
	var list []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(tools, &list); err != nil {
		return nil, err
	}
	s := Schemas{}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	for _, tl := range list {
		if len(tl.OutputSchema) == 0 || string(tl.OutputSchema) == "null" {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.OutputSchema))
		if err != nil {
			return nil, fmt.Errorf("%s: output schema: %w", tl.Name, err)
		}
		url := "mem:///" + tl.Name + ".json"
		if err := comp.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: output schema: %w", tl.Name, err)
		}
		sch, err := comp.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("%s: output schema: %w", tl.Name, err)
		}
		s[tl.Name] = sch
	}
	return s, nil
}

// Check validates a result of the tool name as the TypeScript SDK does: a
// success of a tool with an output schema must return structuredContent,
// and any structuredContent, an error's included, must match the schema.
// An error result must also carry our error JSON, with an errorCode, in a
// text block: that is all an agent sees of the failure.
func (s Schemas) Check(name string, res *mcp.CallToolResult) error {
	if res.IsError {
		if b := Body(res); b == nil || b["errorCode"] == nil || b["errorCode"] == "" {
			return fmt.Errorf("the error result carries no error JSON with an errorCode in its text: %+v", res.Content)
		}
	}
	sch, ok := s[name]
	if !ok || (res.IsError && res.StructuredContent == nil) {
		return nil
	}
	if res.StructuredContent == nil {
		return fmt.Errorf("the tool declares an output schema but the result has no structuredContent")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("structuredContent does not match the output schema: %v\nstructuredContent: %s", err, b)
	}
	return nil
}

// Body decodes what a tool answered: a success's structuredContent, or
// the error JSON that an error result carries in its text block (error
// results carry no structuredContent). It is nil when neither decodes
// to an object.
func Body(res *mcp.CallToolResult) map[string]any {
	var out map[string]any
	if res == nil {
		return nil
	}
	if res.IsError {
		for _, c := range res.Content {
			if tc, ok := mcp.AsTextContent(c); ok && json.Unmarshal([]byte(tc.Text), &out) == nil {
				return out
			}
		}
		return nil
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return out
}
