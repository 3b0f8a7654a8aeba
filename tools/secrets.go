package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

// secretTools may receive placeholders; other tools (evaluate, navigate)
// never see the secret.
var secretTools = []string{"type", "fill", "fill_form"}

// middleware substitutes the caller's placeholders in string arguments of
// the typing tools.
func (s *secrets) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
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
