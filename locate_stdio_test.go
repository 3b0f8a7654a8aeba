package main

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestGenerateLocatorOverStdio drives generate_locator through the built
// binary as a user turns it on (--caps testing, with a
// --test-id-attribute of their own): it is listed, a ref from a snapshot
// and a selector get their locators, the custom attribute makes a test id,
// and a stale ref is ELEMENT_NOT_FOUND.
func TestGenerateLocatorOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--caps", "testing", "--test-id-attribute", "data-qa")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, tl := range list.Tools {
		listed = listed || tl.Name == "generate_locator"
	}
	if !listed {
		t.Fatal("generate_locator is not listed with --caps testing")
	}

	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/locators.html"})
	for sel, want := range map[string][2]string{
		"[data-qa]":       {`page.getByTestId('promo')`, `page.get_by_test_id("promo")`},
		`a[href="/docs"]`: {`page.getByRole('link', { name: 'Docs', exact: true })`, `page.get_by_role("link", name="Docs", exact=True)`},
	} {
		out := s.ok("generate_locator", map[string]any{"sessionId": id, "selector": sel})
		if out["locator"] != want[0] || out["python"] != want[1] || out["unique"] != true {
			t.Errorf("%s: %v, want %s", sel, out, want)
		}
	}
	found := s.ok("find", map[string]any{"sessionId": id, "text": "Save draft", "role": "button"})
	matches, _ := found["matches"].([]any)
	if len(matches) == 0 {
		t.Fatalf("find: %v", found)
	}
	ref, _ := matches[0].(map[string]any)["ref"].(string)
	if out := s.ok("generate_locator", map[string]any{"sessionId": id, "ref": ref}); out["locator"] != `page.getByRole('button', { name: 'Save draft' })` {
		t.Errorf("ref %s: %v", ref, out)
	}
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	if body := s.fail("generate_locator", map[string]any{"sessionId": id, "ref": ref}); body["errorCode"] != "ELEMENT_NOT_FOUND" {
		t.Errorf("a stale ref: %v", body)
	}
}
