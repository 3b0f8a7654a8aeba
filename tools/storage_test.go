package tools_test

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestWebStorageTools: local_storage and session_storage get, set, remove
// and clear the items of the page's origin, as the page itself reads them
// (evaluate), on both engines; a missing key is found: false; bad input
// and an opaque origin are INVALID_PARAMETERS naming the field.
func TestWebStorageTools(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/storage.html?set=ada")
		for _, tc := range []struct{ tool, area string }{{"local_storage", "localStorage"}, {"session_storage", "sessionStorage"}} {
			call := func(args map[string]any) map[string]any {
				t.Helper()
				args["sessionId"] = id
				return e.ok(tc.tool, args)
			}
			page := func(expr string) any {
				t.Helper()
				return e.ok("evaluate", map[string]any{"sessionId": id, "script": tc.area + "." + expr})["result"]
			}
			out := call(map[string]any{"action": "get"})
			items, _ := out["items"].([]any)
			if out["origin"] != site.URL || len(items) != 1 || items[0].(map[string]any)["name"] != "who" || items[0].(map[string]any)["value"] != "ada" {
				t.Fatalf("%s get: %v, want who=ada in %s", tc.tool, out, site.URL)
			}
			if out := call(map[string]any{"action": "set", "key": "k", "value": "v 1"}); out["found"] != false || out["value"] != "v 1" || out["count"] != 2.0 {
				t.Fatalf("%s set: %v", tc.tool, out)
			}
			if got := page("getItem('k')"); got != "v 1" {
				t.Fatalf("%s: the page reads k = %v", tc.tool, got)
			}
			if out := call(map[string]any{"action": "set", "key": "k", "value": "v 2"}); out["found"] != true || !strings.HasPrefix(out["message"].(string), "Replaced") {
				t.Fatalf("%s set again: %v", tc.tool, out)
			}
			if out := call(map[string]any{"action": "get", "key": "k"}); out["found"] != true || out["value"] != "v 2" {
				t.Fatalf("%s get k: %v", tc.tool, out)
			}
			if out := call(map[string]any{"action": "get", "key": "missing"}); out["found"] != false || out["value"] != nil {
				t.Fatalf("%s get missing: %v", tc.tool, out)
			}
			if out := call(map[string]any{"action": "remove", "key": "k"}); out["found"] != true || out["count"] != 1.0 {
				t.Fatalf("%s remove: %v", tc.tool, out)
			}
			if got := page("getItem('k')"); got != nil {
				t.Fatalf("%s: the page reads k = %v after remove", tc.tool, got)
			}
			if out := call(map[string]any{"action": "clear"}); out["count"] != 1.0 {
				t.Fatalf("%s clear: %v", tc.tool, out)
			}
			if got := page("length"); got != 0.0 {
				t.Fatalf("%s: the page has %v items after clear", tc.tool, got)
			}

			e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "set", "value": "no key"})
			e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "remove"})
			if out := e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "set", "key": "k"}); field(out) != "value" {
				t.Fatalf("%s set without a value: %v", tc.tool, out)
			}
			if out := e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "get", "value": ""}); field(out) != "value" {
				t.Fatalf("%s get with a value: %v", tc.tool, out)
			}
			if out := call(map[string]any{"action": "set", "key": "empty", "value": ""}); out["value"] != "" || page("getItem('empty')") != "" {
				t.Fatalf("%s set an empty value: %v", tc.tool, out)
			}
			call(map[string]any{"action": "remove", "key": "empty"})
			if out := e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "list"}); field(out) != "action" {
				t.Fatalf("%s unknown action: %v", tc.tool, out)
			}
			if out := e.fail(engine.InvalidParameters, tc.tool, map[string]any{"sessionId": id, "action": "get", "origin": "file:///etc"}); field(out) != "origin" {
				t.Fatalf("%s file origin: %v", tc.tool, out)
			}
		}
		// An opaque origin has no storage to name.
		e.ok("navigate", map[string]any{"sessionId": id, "url": "about:blank"})
		for _, tool := range []string{"local_storage", "session_storage"} {
			if out := e.fail(engine.InvalidParameters, tool, map[string]any{"sessionId": id, "action": "get"}); field(out) != "origin" || !strings.Contains(out["message"].(string), "opaque origin") {
				t.Fatalf("%s on about:blank: %v", tool, out)
			}
		}
	})
}

// TestWebStorageIsolation: localStorage is the session's, not another
// session's; sessionStorage is the tab's, not another tab's of the same
// session.
func TestWebStorageIsolation(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		a, b := e.open("/storage.html"), e.open("/storage.html")
		e.ok("local_storage", map[string]any{"sessionId": a, "action": "set", "key": "mine", "value": "a"})
		if out := e.ok("local_storage", map[string]any{"sessionId": b, "action": "get", "key": "mine"}); out["found"] != false {
			t.Fatalf("session b sees a's localStorage: %v", out)
		}
		if out := e.ok("local_storage", map[string]any{"sessionId": a, "action": "get", "key": "mine"}); out["found"] != true {
			t.Fatalf("session a lost its item: %v", out)
		}

		e.ok("session_storage", map[string]any{"sessionId": a, "action": "set", "key": "tab", "value": "first"})
		e.ok("tabs", map[string]any{"sessionId": a, "action": "new", "url": site.URL + "/storage.html"})
		if out := e.ok("session_storage", map[string]any{"sessionId": a, "action": "get", "key": "tab"}); out["found"] != false {
			t.Fatalf("a new tab sees the first tab's sessionStorage: %v", out)
		}
		if out := e.ok("local_storage", map[string]any{"sessionId": a, "action": "get", "key": "mine"}); out["found"] != true {
			t.Fatalf("a new tab of the session does not see its localStorage: %v", out)
		}
		e.ok("tabs", map[string]any{"sessionId": a, "action": "select", "index": 0})
		if out := e.ok("session_storage", map[string]any{"sessionId": a, "action": "get", "key": "tab"}); out["found"] != true || out["value"] != "first" {
			t.Fatalf("the first tab's sessionStorage: %v", out)
		}
	})
}

// TestWebStorageOtherOrigin: the storage of another origin (a second
// server) is reached through a frame of it on the page, and its
// localStorage before any page of it is open too; it is that origin's:
// the page's own origin does not hold it, and the origin's own page reads
// it.
func TestWebStorageOtherOrigin(t *testing.T) {
	second := httptest.NewServer(testsite.Handler())
	t.Cleanup(func() {
		second.CloseClientConnections() // the browser may keep a connection open
		second.Close()
	})
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/storage.html")
		// Before any page of it is open: localStorage is reached all the
		// same, a tab's sessionStorage is not.
		if out := e.ok("local_storage", map[string]any{"sessionId": id, "action": "set", "key": "early", "value": "1", "origin": second.URL}); out["origin"] != second.URL || out["found"] != false {
			t.Fatalf("set in an origin the page does not show: %v", out)
		}
		if out := e.fail(engine.InvalidParameters, "session_storage", map[string]any{"sessionId": id, "action": "get", "origin": second.URL}); !strings.Contains(out["message"].(string), "navigate there first") || field(out) != "origin" {
			t.Fatalf("session_storage of an origin not on the page: %v", out)
		}
		if tabs := e.ok("tabs", map[string]any{"sessionId": id, "action": "list"})["tabs"].([]any); len(tabs) != 1 {
			t.Fatalf("tabs after reaching another origin: %v", tabs)
		}
		e.ok("evaluate", map[string]any{"sessionId": id, "script": `new Promise((resolve) => {
			const f = document.createElement('iframe');
			f.onload = () => resolve(true);
			f.src = '` + second.URL + `/storage.html?set=bob';
			document.body.append(f);
		})`})
		out := e.ok("local_storage", map[string]any{"sessionId": id, "action": "get", "origin": second.URL + "/"})
		items, _ := out["items"].([]any)
		if out["origin"] != second.URL || len(items) != 2 || items[0].(map[string]any)["name"] != "early" || items[1].(map[string]any)["value"] != "bob" {
			t.Fatalf("get in the frame: %v, want early=1 and who=bob in %s", out, second.URL)
		}
		e.ok("local_storage", map[string]any{"sessionId": id, "action": "set", "key": "from", "value": "frame", "origin": second.URL})
		if out := e.ok("local_storage", map[string]any{"sessionId": id, "action": "get", "key": "from"}); out["found"] != false || out["origin"] != site.URL {
			t.Fatalf("the page's own origin holds the frame's item: %v", out)
		}
		e.ok("navigate", map[string]any{"sessionId": id, "url": second.URL + "/storage.html"})
		if got := e.ok("evaluate", map[string]any{"sessionId": id, "script": "localStorage.getItem('from')"})["result"]; got != "frame" {
			t.Fatalf("the origin's own page reads from = %v", got)
		}
	})
}

// TestDeleteCookiesTool: delete_cookies deletes by name, domain and path,
// or all, answers the names it deleted, and the page no longer gets them;
// no filter is INVALID_PARAMETERS.
func TestDeleteCookiesTool(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.session()
		e.ok("set_cookies", map[string]any{"sessionId": id, "cookies": []any{
			map[string]any{"name": "a", "value": "1", "url": site.URL},
			map[string]any{"name": "b", "value": "2", "url": site.URL},
			map[string]any{"name": "b", "value": "3", "domain": "127.0.0.1", "path": "/deep"},
			map[string]any{"name": "c", "value": "4", "domain": "example.com"},
		}})
		names := func(out map[string]any) []string {
			var ns []string
			for _, n := range out["names"].([]any) {
				ns = append(ns, n.(string))
			}
			return ns
		}
		if out := e.ok("delete_cookies", map[string]any{"sessionId": id, "name": "b", "path": "/deep"}); out["deleted"] != 1.0 || !slices.Equal(names(out), []string{"b"}) {
			t.Fatalf("delete b in /deep: %v", out)
		}
		if out := e.ok("delete_cookies", map[string]any{"sessionId": id, "domain": ".example.com"}); out["deleted"] != 1.0 || !slices.Equal(names(out), []string{"c"}) {
			t.Fatalf("delete by domain: %v", out)
		}
		if out := e.ok("delete_cookies", map[string]any{"sessionId": id, "name": "none"}); out["deleted"] != 0.0 || len(names(out)) != 0 {
			t.Fatalf("delete nothing: %v", out)
		}
		e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/storage.html"})
		if got := e.title(id); !strings.Contains(got, `"cookie":"a=1; b=2"`) {
			t.Fatalf("the page sees %q, want a=1 and b=2", got)
		}
		e.fail(engine.InvalidParameters, "delete_cookies", map[string]any{"sessionId": id})
		e.fail(engine.InvalidParameters, "delete_cookies", map[string]any{"sessionId": id, "name": "a", "all": true})
		if out := e.ok("delete_cookies", map[string]any{"sessionId": id, "all": true}); out["deleted"] != 2.0 || !slices.Equal(names(out), []string{"a", "b"}) {
			t.Fatalf("delete all: %v", out)
		}
		if n := len(e.ok("get_cookies", map[string]any{"sessionId": id})["cookies"].([]any)); n != 0 {
			t.Fatalf("%d cookies left after all", n)
		}
		e.ok("reload", map[string]any{"sessionId": id})
		if got := e.title(id); !strings.Contains(got, `"cookie":""`) {
			t.Fatalf("the page still sees cookies: %q", got)
		}
	})
}

// field is the details.field of an error body.
func field(out map[string]any) any {
	d, _ := out["details"].(map[string]any)
	return d["field"]
}
