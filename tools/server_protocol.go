package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Check is every check the transports run before mcp-go reads a request
// (jsonrpc.Guard): ResourceCheck, ToolCheck and PromptCheck.
func Check(m *sessions.Manager, s *server.MCPServer) jsonrpc.Check {
	return jsonrpc.Checks(ResourceCheck(m), ToolCheck(s), PromptCheck())
}

// ToolCheck answers a tools/call of a tool the server does not have with
// -32601, method not found, as seed 004 asks: mcp-go answers -32602, as if
// the tool's arguments were at fault. A tool left out by --caps or the
// security settings is not there either.
func ToolCheck(s *server.MCPServer) jsonrpc.Check {
	return func(_ context.Context, method string, params json.RawMessage) *jsonrpc.Error {
		if method != string(mcp.MethodToolsCall) {
			return nil
		}
		var p struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(params, &p) != nil || p.Name == nil || s.GetTool(*p.Name) != nil {
			return nil // mcp-go refuses what it cannot read
		}
		return &jsonrpc.Error{Code: jsonrpc.MethodNotFound,
			Message: fmt.Sprintf("tool %q not found; tools/list names the tools", engine.Clip(*p.Name, 64))}
	}
}

// PromptCheck answers a prompts/get whose arguments do not fit the prompt
// (a required one missing, an unknown one, a JSON one that is no object)
// with -32602, invalid params, and a message that starts with
// INVALID_PARAMETERS: mcp-go answers every error of a prompt handler with
// -32603, an internal error, which it is not.
func PromptCheck() jsonrpc.Check {
	ps := map[string]prompt{}
	for _, p := range prompts() {
		ps[p.name] = p
	}
	return func(_ context.Context, method string, params json.RawMessage) *jsonrpc.Error {
		if method != string(mcp.MethodPromptsGet) {
			return nil
		}
		var req struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if json.Unmarshal(params, &req) != nil {
			return nil
		}
		p, ok := ps[req.Name]
		if !ok {
			return nil
		}
		if _, err := p.bind(req.Arguments); err != nil {
			e := engine.AsError(err).Clipped()
			return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: e.Error(),
				Data: map[string]any{"errorCode": e.Code, "details": e.Details}}
		}
		return nil
	}
}

// Recode gives the error of a resource or prompt handler, which mcp-go
// answers with -32603 whatever it was, the JSON-RPC code of what it is,
// by the error code its message starts with: a parameter of the URI that
// is wrong (an unparsable selector, a pageId that is not 0, a malformed
// timestamp) is -32602, invalid params; what the URI names and is not
// there (a session, an element by ref) is -32002, resource not found.
// Every other error stays an internal one. The data carries the code.
func Recode(message string) (int, any) {
	name, _, ok := strings.Cut(message, ": ")
	if !ok {
		return 0, nil
	}
	code := engine.Code(name)
	switch code {
	case engine.InvalidParameters, engine.InvalidSelector, engine.InvalidURL:
		return jsonrpc.InvalidParams, map[string]any{"errorCode": code}
	case engine.SessionNotFound, engine.SessionExpired, engine.ElementNotFound:
		return jsonrpc.ResourceNotFound, map[string]any{"errorCode": code}
	}
	return 0, nil
}
