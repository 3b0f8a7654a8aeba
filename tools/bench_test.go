package tools_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Benchmarks go through the MCP layer (in-process client) against the real
// browser and a local page, so they measure what an agent waits for:
//
//	go test -run '^$' -bench . -benchtime 50x ./tools/

func BenchmarkCreateSession(b *testing.B) {
	e := newEnv(b, sessions.Config{MaxSessions: 1})
	e.ok("close_session", map[string]any{"sessionId": e.session()}) // warm the browser
	for b.Loop() {
		id := e.session()
		b.StopTimer()
		e.ok("close_session", map[string]any{"sessionId": id})
		b.StartTimer()
	}
}

func BenchmarkCloseSession(b *testing.B) {
	e := newEnv(b, sessions.Config{MaxSessions: 1})
	for b.Loop() {
		b.StopTimer()
		id := e.session()
		b.StartTimer()
		e.ok("close_session", map[string]any{"sessionId": id})
	}
}

func BenchmarkNavigate(b *testing.B) {
	e := newEnv(b, sessions.Config{})
	id := e.session()
	for b.Loop() {
		e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	}
}

func BenchmarkType10(b *testing.B) {
	e := newEnv(b, sessions.Config{})
	id := e.open("/form.html")
	for b.Loop() {
		e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "0123456789", "clear": true})
	}
}
