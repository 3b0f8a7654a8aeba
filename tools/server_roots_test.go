package tools

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestRootDirs checks which client roots name a directory of this
// machine.
func TestRootDirs(t *testing.T) {
	got := rootDirs(slog.New(slog.DiscardHandler), []mcp.Root{
		{URI: "file:///home/me/project"},
		{URI: "file://localhost/srv/data/"},
		{URI: "file:///tmp/with%20space/../x"},
		{URI: "file://build-host/home/me"}, // another machine
		{URI: "https://example.com/repo"},  // not a file
		{URI: "file:relative/dir"},         // not absolute
		{URI: "::bad"},
	})
	want := []string{"/home/me/project", "/srv/data", "/tmp/x"}
	if !slices.Equal(got, want) {
		t.Errorf("rootDirs = %q, want %q", got, want)
	}
}

// TestNoClientRootsWithoutAClient checks that file access without a bound
// client (HTTP, or a client that made no initialize handshake) has only
// the configured directories.
func TestNoClientRootsWithoutAClient(t *testing.T) {
	var none *clientRoots
	if d := none.get(t.Context()); d != nil {
		t.Errorf("nil roots = %v", d)
	}
	r := &clientRoots{log: slog.New(slog.DiscardHandler)}
	if d := r.get(t.Context()); d != nil {
		t.Errorf("roots before any client = %v", d)
	}
}
