package enginetest

import (
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

func (h *harness) testStorage(t *testing.T) {
	t.Run("Cookies", func(t *testing.T) {
		s := h.open(t, "/storage.html?set=ada")
		cs, err := s.Cookies(ctx(t), []string{h.site.url("/")})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(cs, func(c engine.Cookie) bool { return c.Name == "who" && c.Value == "ada" && c.Path == "/" }) {
			t.Fatalf("Cookies = %+v, want who=ada", cs)
		}
		if cs, err := s.Cookies(ctx(t), []string{"https://example.com/"}); err != nil || len(cs) != 0 {
			t.Fatalf("Cookies(example.com) = %+v, %v; want none", cs, err)
		}
		// Browsers cap expiry at 400 days.
		exp := float64(time.Now().Add(30 * 24 * time.Hour).Unix())
		err = s.SetCookies(ctx(t), []engine.Cookie{
			{Name: "by_url", Value: "1", URL: h.site.url("/")},
			{Name: "by_domain", Value: "2", Domain: "127.0.0.1", HTTPOnly: true, Expires: exp},
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, err = s.Cookies(ctx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]engine.Cookie{}
		for _, c := range cs {
			names[c.Name] = c
		}
		if names["by_url"].Value != "1" || names["by_domain"].Value != "2" || !names["by_domain"].HTTPOnly || math.Abs(names["by_domain"].Expires-exp) > 1 {
			t.Fatalf("Cookies after SetCookies = %+v", cs)
		}
		if names["who"].Expires != 0 {
			t.Errorf("session cookie has expires %v, want it omitted", names["who"].Expires)
		}
		h.navigate(t, s, "/storage.html")
		if got := title(t, s); !strings.Contains(got, "by_url=1") || strings.Contains(got, "by_domain") {
			t.Fatalf("page sees cookies %q, want by_url and not the httpOnly by_domain", got)
		}
		_, err = s.Cookies(ctx(t), []string{"not a url"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "urls"})
		err = s.SetCookies(ctx(t), []engine.Cookie{{Name: "x", Value: "y"}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "cookies"})
	})
	t.Run("DeleteCookies", func(t *testing.T) { h.testDeleteCookies(t) })
	t.Run("WebStorage", func(t *testing.T) { h.testWebStorage(t) })
	t.Run("SaveRestore", func(t *testing.T) {
		a := h.open(t, "/storage.html?set=ada")
		st, err := a.SaveState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(st.Cookies, func(c engine.Cookie) bool { return c.Name == "who" && c.Value == "ada" }) {
			t.Fatalf("SaveState cookies = %+v", st.Cookies)
		}
		i := slices.IndexFunc(st.Origins, func(o engine.OriginStorage) bool { return strings.TrimSuffix(o.Origin, "/") == h.site.URL })
		if i < 0 || !slices.Contains(st.Origins[i].LocalStorage, engine.NameValue{Name: "who", Value: "ada"}) {
			t.Fatalf("SaveState origins = %+v, want %s with who=ada", st.Origins, h.site.URL)
		}
		b := h.session(t)
		if err := engine.RestoreState(ctx(t), b, st); err != nil {
			t.Fatal(err)
		}
		h.navigate(t, b, "/storage.html")
		wantTitle(t, b, `storage {"cookie":"who=ada","local":"ada","session":null}`)
		err = engine.RestoreState(ctx(t), b, engine.StorageState{Origins: []engine.OriginStorage{{Origin: "file:///tmp"}}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "state.origins"})
	})
}

// testDeleteCookies: DeleteCookies deletes what its filter picks, by name,
// domain (with or without the leading dot) and path, and answers the
// cookies it deleted; the page no longer sees them.
func (h *harness) testDeleteCookies(t *testing.T) {
	s := h.open(t, "/storage.html")
	err := s.SetCookies(ctx(t), []engine.Cookie{
		{Name: "a", Value: "1", Domain: "127.0.0.1", Path: "/"},
		{Name: "b", Value: "2", Domain: "127.0.0.1", Path: "/"},
		{Name: "b", Value: "3", Domain: "127.0.0.1", Path: "/deep"},
		{Name: "c", Value: "4", Domain: "example.com", Path: "/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	names := func(cs []engine.Cookie) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name+"@"+strings.TrimPrefix(c.Domain, ".")+c.Path)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	del := func(f engine.CookieFilter, want string) {
		t.Helper()
		got, err := s.DeleteCookies(ctx(t), f)
		if err != nil {
			t.Fatalf("DeleteCookies(%+v): %v", f, err)
		}
		if names(got) != want {
			t.Fatalf("DeleteCookies(%+v) = %q, want %q", f, names(got), want)
		}
	}
	del(engine.CookieFilter{Name: "b", Path: "/deep"}, "b@127.0.0.1/deep")
	del(engine.CookieFilter{Name: "nothing"}, "")
	del(engine.CookieFilter{Domain: ".example.com"}, "c@example.com/")
	left, err := s.Cookies(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if names(left) != "a@127.0.0.1/ b@127.0.0.1/" {
		t.Fatalf("cookies left = %q", names(left))
	}
	del(engine.CookieFilter{Name: "b"}, "b@127.0.0.1/")
	h.navigate(t, s, "/storage.html")
	if got := title(t, s); !strings.Contains(got, `"cookie":"a=1"`) {
		t.Fatalf("the page sees %q, want only a=1", got)
	}
	del(engine.CookieFilter{All: true}, "a@127.0.0.1/")
	if left, err := s.Cookies(ctx(t), nil); err != nil || len(left) != 0 {
		t.Fatalf("cookies after All = %+v, %v", left, err)
	}
	_, err = s.DeleteCookies(ctx(t), engine.CookieFilter{})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "all"})
	_, err = s.DeleteCookies(ctx(t), engine.CookieFilter{Name: "a", All: true})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "all"})
}

// testWebStorage: Storage gets, sets, removes and clears the items of
// localStorage and sessionStorage, as the page reads them; another origin
// is reached through a frame of it; an opaque origin, or an origin with no
// frame on the page, is refused.
func (h *harness) testWebStorage(t *testing.T) {
	s := h.open(t, "/storage.html?set=ada")
	st := func(req engine.StorageRequest) engine.StorageResult {
		t.Helper()
		r, err := s.Storage(ctx(t), req)
		if err != nil {
			t.Fatalf("Storage(%+v): %v", req, err)
		}
		return r
	}
	page := func(expr string) string {
		t.Helper()
		return evaluate(t, s, engine.EvalRequest{Expression: expr})
	}
	for _, session := range []bool{false, true} {
		area := engine.StorageRequest{Session: session}.Area()
		t.Run(area, func(t *testing.T) {
			req := func(action, key, value string) engine.StorageRequest {
				return engine.StorageRequest{Session: session, Action: action, Key: key, Value: value}
			}
			r := st(req("get", "", ""))
			if r.Origin != h.site.URL || !slices.Equal(r.Items, []engine.NameValue{{Name: "who", Value: "ada"}}) || r.Count != 1 {
				t.Fatalf("get all = %+v, want who=ada in %s", r, h.site.URL)
			}
			if r := st(req("set", "k", "v 1")); r.Found || r.Value == nil || *r.Value != "v 1" || r.Count != 2 {
				t.Fatalf("set = %+v", r)
			}
			if got := page(area + ".getItem('k')"); got != `"v 1"` {
				t.Fatalf("the page reads k = %s", got)
			}
			if r := st(req("set", "k", "v 2")); !r.Found || *r.Value != "v 2" {
				t.Fatalf("set again = %+v", r)
			}
			if r := st(req("get", "k", "")); !r.Found || r.Value == nil || *r.Value != "v 2" {
				t.Fatalf("get k = %+v", r)
			}
			if r := st(req("get", "missing", "")); r.Found || r.Value != nil {
				t.Fatalf("get missing = %+v", r)
			}
			if r := st(req("remove", "k", "")); !r.Found || r.Count != 1 {
				t.Fatalf("remove = %+v", r)
			}
			if got := page(area + ".getItem('k')"); got != "null" {
				t.Fatalf("the page reads k = %s after remove", got)
			}
			if r := st(req("clear", "", "")); r.Count != 1 {
				t.Fatalf("clear = %+v", r)
			}
			if got := page(area + ".length"); got != "0" {
				t.Fatalf("the page has %s items after clear", got)
			}
		})
	}
	// Another origin (a second server), reached through a frame of it.
	second := httptest.NewServer(testsite.Handler())
	t.Cleanup(func() {
		second.CloseClientConnections() // the browser may keep a connection open
		second.Close()
	})
	evaluate(t, s, engine.EvalRequest{Function: `(src) => new Promise((resolve) => {
		const f = document.createElement('iframe');
		f.onload = () => resolve(true);
		f.src = src;
		document.body.append(f);
	})`, Args: []any{second.URL + "/storage.html?set=bob"}})
	if r := st(engine.StorageRequest{Action: "get", Origin: second.URL + "/"}); r.Origin != second.URL || !slices.Equal(r.Items, []engine.NameValue{{Name: "who", Value: "bob"}}) {
		t.Fatalf("get in the frame = %+v, want who=bob in %s", r, second.URL)
	}
	if r := st(engine.StorageRequest{Action: "set", Key: "in", Value: "frame", Origin: second.URL}); r.Found || r.Count != 2 {
		t.Fatalf("set in the frame = %+v", r)
	}
	if r := st(engine.StorageRequest{Action: "get", Key: "in"}); r.Found || r.Origin != h.site.URL {
		t.Fatalf("the page's own origin holds the frame's item: %+v", r)
	}
	if r := st(engine.StorageRequest{Action: "get", Key: "in", Origin: second.URL}); !r.Found || *r.Value != "frame" {
		t.Fatalf("get in the frame = %+v", r)
	}
	// The localStorage of an origin no frame shows is reached all the
	// same (in a tab of the engine's own), and its page reads it; a tab's
	// sessionStorage is not.
	third := httptest.NewServer(testsite.Handler())
	t.Cleanup(func() {
		third.CloseClientConnections() // the browser may keep a connection open
		third.Close()
	})
	if r := st(engine.StorageRequest{Action: "set", Key: "who", Value: "cy", Origin: third.URL}); r.Origin != third.URL || r.Found || r.Count != 1 {
		t.Fatalf("set in an origin the page does not show = %+v", r)
	}
	if r := st(engine.StorageRequest{Action: "get", Origin: third.URL}); !slices.Equal(r.Items, []engine.NameValue{{Name: "who", Value: "cy"}}) {
		t.Fatalf("get in an origin the page does not show = %+v", r)
	}
	_, err := s.Storage(ctx(t), engine.StorageRequest{Session: true, Action: "get", Origin: third.URL})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "origin"})
	if got := title(t, s); !strings.HasPrefix(got, "storage ") {
		t.Fatalf("the tab left its page for %q", got)
	}
	if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: third.URL + "/storage.html"}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s); !strings.Contains(got, `"local":"cy"`) {
		t.Fatalf("the origin's page reads %q, want local cy", got)
	}
	if tabs, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "list"}); err != nil || len(tabs.Tabs) != 1 {
		t.Fatalf("tabs after reaching another origin = %+v, %v; want the one", tabs, err)
	}
	_, err = s.Storage(ctx(t), engine.StorageRequest{Action: "get", Origin: "file:///tmp"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "origin"})
	_, err = s.Storage(ctx(t), engine.StorageRequest{Action: "set", Value: "x"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "key"})
	_, err = s.Storage(ctx(t), engine.StorageRequest{Action: "list"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "action"})
	if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Storage(ctx(t), engine.StorageRequest{Action: "get"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "origin", "url": "about:blank"})
}
