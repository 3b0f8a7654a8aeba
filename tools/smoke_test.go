package tools_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func TestSmoke(t *testing.T) {
	e := newEnv(t, engine.ManagerConfig{})
	id := e.open("/form.html")
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ada"})
	if got := e.title(id); got != "user=ada" {
		t.Fatalf("title = %q", got)
	}
	out := e.ok("click", map[string]any{"sessionId": id, "selector": "#go"})
	t.Logf("%v", out)
	if got := e.title(id); got != "Welcome" {
		t.Fatalf("title = %q", got)
	}
}
