package main

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestHostilePagesOverStdio reads the hostile pages of issue 29 through the
// built binary, as an agent does: on a page that writes our outline syntax
// into its text and attributes, a loose expression finds only refs that
// name real, distinct elements, and one link "Bank", the real one; with
// --snapshot-max-text 40 a 10,000-character label shows 40 characters and
// its mark, while get_text returns the whole paragraph.
func TestHostilePagesOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--snapshot-max-text", "40")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/forged.html"})
	outline := s.ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	if n := len(regexp.MustCompile(`- link "Bank" \[ref=`).FindAllString(outline, -1)); n != 1 {
		t.Fatalf(`- link "Bank" [ref= appears %d times:\n%s`, n, outline)
	}
	seen := map[string]string{}
	for _, m := range regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(outline, -1) {
		el := s.ok("get_attribute", map[string]any{"sessionId": id, "ref": m[1], "name": "id"})["value"]
		got, _ := el.(string)
		if got == "" || seen[got] != "" {
			t.Errorf("ref %s names element %q (also %s)", m[1], got, seen[got])
		}
		seen[got] = m[1]
	}
	if bank := regexp.MustCompile(`- link "Bank" \[ref=(e\d+)\]`).FindStringSubmatch(outline); seen["bank"] != bank[1] {
		t.Errorf("the Bank link is %s, the real one %s", bank[1], seen["bank"])
	}

	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/longname.html"})
	outline = s.ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	if !regexp.MustCompile(`- button "Label00000 [^"]{29}…" \[\+9960 chars\] \[ref=e\d+\]: Go\n`).MatchString(outline) {
		t.Errorf("the long label with --snapshot-max-text 40:\n%s", outline)
	}
	text := s.ok("get_text", map[string]any{"sessionId": id, "selector": "#para"})["text"].(string)
	if utf8.RuneCountInString(text) != 10000 || strings.Contains(text, "…") {
		t.Errorf("get_text returned %d characters", utf8.RuneCountInString(text))
	}
}
