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

// errorResult renders a failure as an isError result.
func errorResult(err error) *mcp.CallToolResult {
	e := engine.AsError(err).Clipped()
	body := ErrorBody{ErrorCode: e.Code, Message: e.Message, SessionID: e.SessionID, Details: e.Details, Retryable: e.Retryable, Suggestion: e.Suggestion}
	b, _ := json.Marshal(body)
	r := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	r.IsError = true
	return r
}
