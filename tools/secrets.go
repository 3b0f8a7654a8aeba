package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// secretTTL bounds how long a password placeholder works.
const secretTTL = 30 * time.Minute

// maxSecretsPerOwner bounds the memory one API key can make us hold.
const maxSecretsPerOwner = 32

// secrets holds values that must not enter the conversation, behind
// placeholders that only their owner can use with the typing tools.
type secrets struct {
	mu sync.Mutex
	m  map[string]secret
}

type secret struct {
	owner, value string
	expires      time.Time
}

func newSecrets() *secrets { return &secrets{m: map[string]secret{}} }

func (s *secrets) put(owner, value string) (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	handle := "{{secret:" + hex.EncodeToString(b) + "}}"
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	n := 0
	var oldest string
	for h, v := range s.m {
		if now.After(v.expires) {
			delete(s.m, h)
			continue
		}
		if v.owner == owner {
			n++
			if oldest == "" || v.expires.Before(s.m[oldest].expires) {
				oldest = h
			}
		}
	}
	if n >= maxSecretsPerOwner {
		delete(s.m, oldest)
	}
	s.m[handle] = secret{owner: owner, value: value, expires: now.Add(secretTTL)}
	return handle, nil
}

func (s *secrets) get(owner, handle string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[handle]
	if !ok || v.owner != owner || time.Now().After(v.expires) {
		return "", false
	}
	return v.value, true
}

// minRedacted is the shortest secret value redacted from results: a
// shorter one would also hide ordinary text that happens to contain it.
const minRedacted = 4

// redactor replaces the owner's secret values in text by their
// placeholders; nil when the owner has none.
func (s *secrets) redactor(owner string) *strings.Replacer {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var pairs []string
	now := time.Now()
	for h, v := range s.m {
		if v.owner != owner || now.After(v.expires) || len(v.value) < minRedacted {
			continue
		}
		pairs = append(pairs, v.value, h)
		// The value as it appears inside a JSON string, when it differs.
		if b, err := json.Marshal(v.value); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v.value {
				pairs = append(pairs, esc, h)
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// redactResult removes the owner's secrets from a tool result: a password
// typed from the authenticate prompt never comes back to the model, from
// get_value, evaluate, a snapshot or any other tool.
func redactResult(r *strings.Replacer, res *mcp.CallToolResult) {
	if r == nil || res == nil {
		return
	}
	for i, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			t.Text = r.Replace(t.Text)
			res.Content[i] = t
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			if red := r.Replace(string(b)); red != string(b) {
				res.StructuredContent = json.RawMessage(red)
			}
		}
	}
}

// secretTools may receive placeholders; other tools (evaluate, navigate)
// never see the secret.
var secretTools = []string{"type", "fill", "fill_form"}

// middleware substitutes the caller's placeholders in string arguments of
// the typing tools, and redacts the caller's secrets from every result.
func (s *secrets) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	substitute := s.substitute(next)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := substitute(ctx, req)
		redactResult(s.redactor(engine.OwnerOf(ctx)), res)
		return res, err
	}
}

// substitute replaces the caller's placeholders in string arguments of the
// typing tools.
func (s *secrets) substitute(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, ok := req.Params.Arguments.(map[string]any)
		if !ok || !slices.Contains(secretTools, req.Params.Name) {
			return next(ctx, req)
		}
		owner := engine.OwnerOf(ctx)
		var copied map[string]any
		for k, v := range args {
			str, ok := v.(string)
			if !ok || !strings.HasPrefix(str, "{{secret:") {
				continue
			}
			val, ok := s.get(owner, str)
			if !ok {
				return errorResult(invalid(k, "%s is an unknown or expired secret placeholder; get a new one from the authenticate prompt", k)), nil
			}
			if copied == nil {
				copied = make(map[string]any, len(args))
				for k2, v2 := range args {
					copied[k2] = v2
				}
			}
			copied[k] = val
		}
		if copied != nil {
			req.Params.Arguments = copied
		}
		return next(ctx, req)
	}
}
