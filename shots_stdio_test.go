package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// shoot takes a screenshot under --image-responses omit and returns the
// file the result names.
func (s *proc) shoot(id string) string {
	s.t.Helper()
	out := s.ok("screenshot", map[string]any{"sessionId": id})
	path, found := strings.CutPrefix(fmt.Sprint(out["note"]), "image omitted (--image-responses omit); saved to ")
	if !found {
		s.t.Fatalf("screenshot: %v names no file", out)
	}
	if _, err := os.Stat(path); err != nil {
		s.t.Fatalf("the screenshot's file: %v", err)
	}
	return path
}

// resourceURIs lists the URIs resources/list names.
func (s *proc) resourceURIs() []string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		s.t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	return uris
}

// shotURIs reads the session's screenshot list resource: the URIs of the
// screenshots it names, or the read's error.
func (s *proc) shotURIs(id string) ([]string, error) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "browser:///screenshot/" + id + "/0"}})
	if err != nil {
		return nil, err
	}
	var list struct {
		Screenshots []struct {
			URI string `json:"uri"`
		} `json:"screenshots"`
	}
	if len(res.Contents) != 1 {
		s.t.Fatalf("the screenshot list: %v", res.Contents)
	}
	if err := json.Unmarshal([]byte(res.Contents[0].(mcp.TextResourceContents).Text), &list); err != nil {
		s.t.Fatal(err)
	}
	var uris []string
	for _, sh := range list.Screenshots {
		uris = append(uris, sh.URI)
	}
	return uris, nil
}

func names(uris []string, id string) bool {
	for _, u := range uris {
		if strings.Contains(u, id) {
			return true
		}
	}
	return false
}

// TestKeptScreenshotsGoWithTheirSession (issue #23). Before: under
// --image-responses omit the files a session's screenshots were saved to,
// and the screenshots kept for its resources, stayed after the session
// was closed or expired. After: close_session and expiry remove its
// files and forget its screenshots; another session's stay.
func TestKeptScreenshotsGoWithTheirSession(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	// Sessions expire after 5 s without a call.
	s := startBinary(t, "--image-responses", "omit", "--output-dir", out, "--session-timeout", "5000")
	open := func() (string, []string) {
		id := s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
		files := []string{s.shoot(id), s.shoot(id)}
		if uris, err := s.shotURIs(id); err != nil || len(uris) != 2 {
			t.Fatalf("the screenshot list of %s: %v, %v; want two", id, uris, err)
		}
		return id, files
	}
	closed, closedFiles := open()
	s.ok("close_session", map[string]any{"sessionId": closed})
	for _, f := range closedFiles {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the file %s of a closed session: %v, want it removed", f, err)
		}
	}
	if uris := s.resourceURIs(); names(uris, closed) {
		t.Errorf("resources/list names the closed session: %v", uris)
	}
	if uris, err := s.shotURIs(closed); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
		t.Errorf("the screenshot list of a closed session: %v, %v; want SESSION_NOT_FOUND", uris, err)
	}

	expiring, expiringFiles := open()
	testenv.Eventually(t, "the idle session to expire and its files to go", func() (bool, error) {
		for _, f := range expiringFiles {
			if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
				return false, fmt.Errorf("the file %s: %v", f, err)
			}
		}
		return true, nil
	})
	if uris := s.resourceURIs(); names(uris, expiring) {
		t.Errorf("resources/list names the expired session: %v", uris)
	}
	if uris, err := s.shotURIs(expiring); err == nil || !strings.Contains(err.Error(), "SESSION_") {
		t.Errorf("the screenshot list of an expired session: %v, %v; want SESSION_EXPIRED or SESSION_NOT_FOUND", uris, err)
	}
	// Nothing of theirs is left in the output directory.
	left, _ := filepath.Glob(filepath.Join(out, "screenshots", "*"))
	if len(left) != 0 {
		t.Errorf("the output directory keeps %v", left)
	}
}
