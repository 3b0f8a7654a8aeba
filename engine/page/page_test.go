package page

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func TestParseKey(t *testing.T) {
	for _, c := range []struct {
		key   string
		extra []string
		mods  []string
		name  string
	}{
		{key: "Enter", name: "Enter"},
		{key: "a", name: "a"},
		{key: "Space", name: " "},
		{key: "escape", name: "Escape"},
		{key: "+", name: "+"},
		{key: "Control++", mods: []string{"Control"}, name: "+"},
		{key: "ctrl+Shift+A", mods: []string{"Control", "Shift"}, name: "A"},
		{key: "x", extra: []string{"cmd", "ALT"}, mods: []string{"Meta", "Alt"}, name: "x"},
		{key: "Shift+Tab", extra: []string{"Alt"}, mods: []string{"Alt", "Shift"}, name: "Tab"},
	} {
		mods, k, err := ParseKey(c.key, c.extra)
		if err != nil {
			t.Errorf("ParseKey(%q, %q): %v", c.key, c.extra, err)
			continue
		}
		var names []string
		for _, m := range mods {
			names = append(names, m.Key)
		}
		if !slices.Equal(names, c.mods) || k.Key != c.name {
			t.Errorf("ParseKey(%q, %q) = %q, %q; want %q, %q", c.key, c.extra, names, k.Key, c.mods, c.name)
		}
	}
	for _, c := range []struct {
		key   string
		extra []string
		field string
	}{
		{key: "Hyper+a", field: "modifiers"},
		{key: "a", extra: []string{"Fn"}, field: "modifiers"},
		{key: "NoSuchKey", field: "key"},
		{key: "Control+NoSuchKey", field: "key"},
	} {
		_, _, err := ParseKey(c.key, c.extra)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.InvalidParameters || e.Details["field"] != c.field {
			t.Errorf("ParseKey(%q, %q) = %v; want INVALID_PARAMETERS for field %s", c.key, c.extra, err, c.field)
		}
	}
}

func TestParseRef(t *testing.T) {
	for ref, want := range map[string]struct {
		alias string
		n     int
	}{"e1": {"", 1}, "e42": {"", 42}, "f3e7": {"f3", 7}} {
		alias, n, err := ParseRef(ref)
		if err != nil || alias != want.alias || n != want.n {
			t.Errorf("ParseRef(%q) = %q, %d, %v; want %q, %d", ref, alias, n, err, want.alias, want.n)
		}
	}
	for _, ref := range []string{"", "e0", "e", "1", "E1", "f0e1", "fe1", "e1 ", "#e1"} {
		_, _, err := ParseRef(ref)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.InvalidParameters || e.Details["field"] != "ref" {
			t.Errorf("ParseRef(%q) = %v; want INVALID_PARAMETERS for field ref", ref, err)
		}
	}
}

func TestTruncateOutline(t *testing.T) {
	text := "- a\n- b\n- c"
	if got, cut := TruncateOutline(text, 0); got != text || cut {
		t.Errorf("TruncateOutline(text, 0) = %q, %v; want the text uncut", got, cut)
	}
	if got, cut := TruncateOutline(text, len(text)); got != text || cut {
		t.Errorf("TruncateOutline(text, len) = %q, %v; want the text uncut", got, cut)
	}
	got, cut := TruncateOutline(text, 6)
	if !cut || !strings.HasPrefix(got, "- a\n[... truncated: showing 3 of 11 characters.") {
		t.Errorf("TruncateOutline(text, 6) = %q, %v; want it cut after the first line", got, cut)
	}
}

func TestSpliceFrames(t *testing.T) {
	out := SnapshotOutcome{Text: "- main\n  \x010\n- after [ref=e3]", Frames: 1}
	got, err := SpliceFrames(out, func(idx int) (string, error) {
		if idx != 0 {
			t.Fatalf("frame %d asked for; want 0", idx)
		}
		return "- button \"Go\" [ref=f1e1]\n- link \"Home\" [ref=f1e2]", nil
	})
	want := "- main\n  - button \"Go\" [ref=f1e1]\n  - link \"Home\" [ref=f1e2]\n- after [ref=e3]"
	if err != nil || got != want {
		t.Fatalf("SpliceFrames = %q, %v; want %q", got, err, want)
	}
	if n := CountRefs(got); n != 3 {
		t.Errorf("CountRefs = %d; want 3", n)
	}
}

func TestHitError(t *testing.T) {
	tg := engine.Target{Ref: "e5"}
	for _, h := range []Hit{{None: true}, {OK: true, ReceivedBy: "button#go"}} {
		if err := HitError(h, tg, "click"); err != nil {
			t.Errorf("HitError(%+v) = %v, want nil", h, err)
		}
	}
	// Blocked: nothing was clicked; the error names what would have been,
	// with its text, and Bound may try again.
	blocked := Hit{Missed: true, Blocked: true, Reason: "moved", Element: "button#checkout", ReceivedBy: "a#continue",
		Hit: "a#continue", HitText: "Continue shopping", CoveredBy: "a#continue"}
	err := HitError(blocked, tg, "click")
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.ElementNotClickable || !errors.Is(err, engine.ErrInputBlocked) {
		t.Fatalf("blocked: %v, want ELEMENT_NOT_CLICKABLE wrapping ErrInputBlocked", err)
	}
	if e.Details["reason"] != "moved" || e.Details["clicked"] != false || e.Details["receivedBy"] != "a#continue" || e.Details["ref"] != "e5" ||
		!strings.Contains(e.Message, `a#continue ("Continue shopping") would have received it`) {
		t.Errorf("blocked: %s %v", e.Message, e.Details)
	}
	// Forced: the input was sent, and another element got it.
	forced := blocked
	forced.Blocked = false
	err = HitError(forced, tg, "click")
	if !errors.As(err, &e) || errors.Is(err, engine.ErrInputBlocked) || e.Details["clicked"] != true || e.Details["receivedBy"] != "a#continue" {
		t.Fatalf("forced: %v %v, want the click reported as received by a#continue", err, e.Details)
	}
	// Unseen: the input went where no guard listens (a cross-origin frame
	// over the target); it happened, and is not tried again.
	unseen := Hit{Missed: true, Unseen: true, Reason: "covered", Element: "button#buy", ReceivedBy: "iframe#ad", Hit: "iframe#ad", CoveredBy: "iframe#ad"}
	err = HitError(unseen, tg, "click")
	if !errors.As(err, &e) || errors.Is(err, engine.ErrInputBlocked) || e.Retryable || e.Details["clicked"] != true ||
		e.Details["receivedBy"] != "iframe#ad" || !strings.Contains(e.Message, "went to iframe#ad") || strings.Contains(e.Message, "forced") {
		t.Fatalf("unseen: %v %v, want the click reported as sent to iframe#ad", err, e.Details)
	}
}

// TestOutlineStrings checks how the Go side writes page strings into the
// lines around an outline (a frame's error, a tool's title and URL), as
// the snapshot script does: nothing starts a line, no bracket or quote of
// the page's stays bare.
func TestOutlineStrings(t *testing.T) {
	for _, c := range []struct{ in, text, quote, url string }{
		{"Plain title", "Plain title", `"Plain title"`, "Plain%20title"},
		{"a\n- link \"Bank\" [ref=e7]", `"a - link \"Bank\" \[ref=e7\]"`, `"a - link \"Bank\" \[ref=e7\]"`, "a%0A-%20link%20%22Bank%22%20%5Bref=e7%5D"},
		{"x\u2028y\u0085z\u2029", "x y z", `"x y z"`, "x%E2%80%A8y%C2%85z%E2%80%A9"},
		{"back\\slash | pipe", `"back\\slash | pipe"`, `"back\\slash | pipe"`, "back%5Cslash%20|%20pipe"},
		{"bell\x07 \u202eevil", `"bell\u0007 \u202eevil"`, `"bell\u0007 \u202eevil"`, "bell%07%20%E2%80%AEevil"},
		{"…", `"…"`, `"…"`, "%E2%80%A6"},
		{"http://h/p?q=1#f", "http://h/p?q=1#f", `"http://h/p?q=1#f"`, "http://h/p?q=1#f"},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %s, want %s", c.in, got, c.text)
		}
		if got := Quote(c.in); got != c.quote {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.quote)
		}
		if got := URL(c.in); got != c.url {
			t.Errorf("URL(%q) = %s, want %s", c.in, got, c.url)
		}
	}
	// A page's text quoted holds no ref a loose expression would take.
	if n := CountRefs(`- paragraph: ` + Text(`- link "Bank" [ref=e7]`) + "\n- link \"Bank\" [ref=e8] /bank"); n != 1 {
		t.Errorf("CountRefs counts %d refs, want the one real", n)
	}
}
