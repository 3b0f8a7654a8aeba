package enginetest

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
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
