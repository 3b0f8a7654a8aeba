package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// texter is implemented by results whose text for the model is not their
// JSON, such as a snapshot: escaping an outline into a JSON string would
// cost tokens and hide its lines.
type texter interface{ text() string }

// result renders a success: structuredContent plus the same JSON as text,
// or the result's own text when it has one.
func result(out any) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return errorResult(fmt.Errorf("encoding the result: %w", err))
	}
	text := string(b)
	if t, ok := out.(texter); ok {
		text = t.text()
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), text)
}

// ErrorBody is the JSON an agent gets for every failure.
type ErrorBody struct {
	ErrorCode  engine.Code    `json:"errorCode"`
	Message    string         `json:"message"`
	SessionID  string         `json:"sessionId,omitempty"`
	Details    map[string]any `json:"details,omitempty"`
	Retryable  bool           `json:"retryable"`
	Suggestion string         `json:"suggestion,omitempty"`
}

// errorResult renders a failure as an isError result whose one text block
// is the ErrorBody's JSON. It carries no structuredContent: that field
// answers the tool's output schema, which describes the tool's success, and
// clients that validate it (the TypeScript SDK does, error results included)
// would throw instead of showing the agent our errorCode
// (docs/decisions/2026-11-27-errors-without-structured-content.md).
func errorResult(err error) *mcp.CallToolResult {
	e := engine.AsError(err).Clipped()
	body := ErrorBody{ErrorCode: e.Code, Message: e.Message, SessionID: e.SessionID, Details: e.Details, Retryable: e.Retryable, Suggestion: e.Suggestion}
	b, _ := json.Marshal(body)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
}
