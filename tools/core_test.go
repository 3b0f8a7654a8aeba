package tools_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

func TestSessionLifecycle(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	out := e.ok("create_session", nil)
	id := out["sessionId"].(string)
	if u, err := uuid.Parse(id); err != nil || u.Version() != 4 {
		t.Fatalf("sessionId %q is not a UUID v4", id)
	}
	if exp := int64(out["expiresAt"].(float64)); exp < time.Now().Add(50*time.Second).UnixMilli() {
		t.Fatalf("expiresAt %d is not about a minute ahead", exp)
	}
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=x"})

	list := e.ok("list_sessions", nil)["sessions"].([]any)
	if len(list) != 1 {
		t.Fatalf("list_sessions: %v", list)
	}
	s := list[0].(map[string]any)
	if s["sessionId"] != id || s["title"] != "Welcome" || !strings.HasSuffix(s["url"].(string), "/welcome.html?user=x") {
		t.Fatalf("list entry: %v", s)
	}
	if s["createdAt"].(float64) <= 0 || s["expiresAt"].(float64) <= s["createdAt"].(float64) {
		t.Fatalf("list times: %v", s)
	}

	closed := e.ok("close_session", map[string]any{"sessionId": id})
	if closed["success"] != true {
		t.Fatalf("close_session: %v", closed)
	}
	if n := len(e.ok("list_sessions", nil)["sessions"].([]any)); n != 0 {
		t.Fatalf("%d sessions after close", n)
	}
	for tool, args := range map[string]map[string]any{
		"navigate":      {"sessionId": id, "url": site.URL},
		"click":         {"sessionId": id, "selector": "#go"},
		"type":          {"sessionId": id, "selector": "#go", "text": "x"},
		"close_session": {"sessionId": id},
	} {
		body := e.fail(engine.SessionNotFound, tool, args)
		if body["sessionId"] != id || body["suggestion"] == nil {
			t.Fatalf("%s on closed session: %v", tool, body)
		}
	}
}

func TestCallsSlideExpiry(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	created := e.ok("create_session", nil)
	id := created["sessionId"].(string)
	// expiresAt counts in milliseconds: once the clock has left the one the
	// session was created in (at the latest, this one), a call must push
	// it later.
	createdBy := time.Now().UnixMilli()
	testenv.Eventually(t, "the clock to pass the session's creation", func() (bool, error) {
		return time.Now().UnixMilli() > createdBy, nil
	})
	out := e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	if out["sessionId"] != id || out["expiresAt"].(float64) <= created["expiresAt"].(float64) {
		t.Fatalf("navigate did not report a later expiresAt: %v vs %v", out["expiresAt"], created["expiresAt"])
	}
}

func TestSessionExpires(t *testing.T) {
	e := newEnv(t, sessions.Config{Timeout: 300 * time.Millisecond})
	id := e.session()
	testenv.Eventually(t, "the session to expire", func() (bool, error) {
		return e.mgr.Len() == 0, nil
	})
	body := e.fail(engine.SessionExpired, "navigate", map[string]any{"sessionId": id, "url": site.URL})
	if !strings.Contains(body["suggestion"].(string), "create_session") {
		t.Fatalf("suggestion: %v", body["suggestion"])
	}
}

func TestMaxSessions(t *testing.T) {
	e := newEnv(t, sessions.Config{MaxSessions: 2})
	a := e.session()
	e.session()
	body := e.fail(engine.MaxSessionsReached, "create_session", nil)
	if body["details"].(map[string]any)["maxSessions"].(float64) != 2 {
		t.Fatalf("details: %v", body)
	}
	e.ok("close_session", map[string]any{"sessionId": a})
	e.session()
}

func TestNavigate(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.session()
	out := e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/redirect?to=/welcome.html%3Fuser%3Dr"})
	if out["success"] != true || out["title"] != "Welcome" || out["status"].(float64) != 200 ||
		out["url"] != site.URL+"/welcome.html?user=r" {
		t.Fatalf("navigate after redirect: %v", out)
	}
	out = e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/status?code=404"})
	if out["status"].(float64) != 404 || out["title"] != "status 404" {
		t.Fatalf("404 page: %v", out)
	}
	for _, w := range []string{"domcontentloaded", "networkidle", "load"} {
		out = e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html", "waitUntil": w})
		if out["title"] != "Sign in" {
			t.Fatalf("waitUntil %s: %v", w, out)
		}
	}
	// A fragment change is a same-document navigation.
	out = e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html#far"})
	if !strings.HasSuffix(out["url"].(string), "#far") {
		t.Fatalf("fragment navigation: %v", out)
	}
}

func TestNavigateErrors(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.session()
	cases := []struct {
		url, netError string
		code          engine.Code
	}{
		{"http://" + closedPort(t) + "/", "net::ERR_CONNECTION_REFUSED", engine.NetworkError},
		{"http://nonexistent.invalid/", "net::ERR_NAME_NOT_RESOLVED", engine.NetworkError},
		{"notaurl", "Cannot navigate to invalid URL", engine.InvalidURL},
	}
	for _, c := range cases {
		body := e.fail(c.code, "navigate", map[string]any{"sessionId": id, "url": c.url})
		d := body["details"].(map[string]any)
		if d["url"] != c.url || d["netError"] != c.netError || body["sessionId"] != id {
			t.Errorf("navigate %s: %v", c.url, body)
		}
	}
	// A URL that does not parse is refused before the browser sees it.
	body := e.fail(engine.InvalidURL, "navigate", map[string]any{"sessionId": id, "url": "ht!tp://bad url"})
	if d := body["details"].(map[string]any); d["field"] != "url" || body["retryable"] != false {
		t.Errorf("an unparsable URL: %v", body)
	}
	body = e.fail(engine.NavigationFailed, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/hang", "timeout": 500})
	if d := body["details"].(map[string]any); d["reason"] != "timeout" || body["retryable"] != true {
		t.Fatalf("timeout: %v", body)
	}
	// The session still works after a timeout.
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
}

func TestInvalidParameters(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.session()
	cases := []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"navigate", map[string]any{"sessionId": id}, "url"},
		{"navigate", map[string]any{"sessionId": id, "url": ""}, "url"},
		{"navigate", map[string]any{"sessionId": id, "url": 5}, "url"},
		{"navigate", map[string]any{"sessionId": id, "url": "http://x", "waitUntil": "soon"}, "waitUntil"},
		{"navigate", map[string]any{"sessionId": id, "url": "http://x", "timeout": -1}, "timeout"},
		{"navigate", map[string]any{"sessionId": id, "url": "http://x", "timeout": "fast"}, "timeout"},
		{"click", map[string]any{"sessionId": id}, "selector"},
		{"click", map[string]any{"sessionId": id, "selector": "#a", "clickCount": -2}, "clickCount"},
		{"type", map[string]any{"sessionId": id, "selector": "#user"}, "text"},
		{"type", map[string]any{"sessionId": id, "selector": "#user", "text": "x", "delay": -5}, "delay"},
		{"close_session", map[string]any{}, "sessionId"},
		{"close_session", map[string]any{"sessionId": true}, "sessionId"},
	}
	for _, c := range cases {
		body := e.fail(engine.InvalidParameters, c.tool, c.args)
		if d, _ := body["details"].(map[string]any); d["field"] != c.field {
			t.Errorf("%s %v: details %v, want field %s", c.tool, c.args, body["details"], c.field)
		}
		// The error carries the sessionId the call gave (a string one).
		if want, _ := c.args["sessionId"].(string); body["sessionId"] != want && (want != "" || body["sessionId"] != nil) {
			t.Errorf("%s %v: sessionId %v, want %q", c.tool, c.args, body["sessionId"], want)
		}
	}
	// Bad selector syntax is INVALID_SELECTOR, naming the selector.
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	for _, sel := range []string{"##bad[", "//div[", "xpath=(((", "css=>>>"} {
		body := e.fail(engine.InvalidSelector, "click", map[string]any{"sessionId": id, "selector": sel})
		if d := body["details"].(map[string]any); d["field"] != "selector" || d["selector"] != sel || body["sessionId"] != id {
			t.Errorf("selector %q: %v", sel, body)
		}
	}
}

func TestClick(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	e.ok("click", map[string]any{"sessionId": id, "selector": "#count"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "//button[text()='Count']"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "xpath=//button[@id='count']"})
	if got := e.title(id); got != "clicked 3" {
		t.Fatalf("after three clicks: %q", got)
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#dbl", "clickCount": 2})
	if got := e.title(id); got != "double" {
		t.Fatalf("double click: %q", got)
	}
	// An element far below the fold is scrolled into view first.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#far"})
	if got := e.title(id); got != "far clicked" {
		t.Fatalf("far click: %q", got)
	}
	// An element that appears later is waited for.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#later"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#late", "timeout": 5000})
	if got := e.title(id); got != "late clicked" {
		t.Fatalf("late click: %q", got)
	}
	// A click that starts a request returns after the response arrived.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#fetcher"})
	if got := e.title(id); !strings.HasPrefix(got, "fetched ") {
		t.Fatalf("fetch click returned before the request settled: %q", got)
	}
}

func TestClickThatSubmitsWaitsForNewPage(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ada"})
	out := e.ok("click", map[string]any{"sessionId": id, "selector": "#go"})
	if out["url"] == nil || !strings.Contains(out["url"].(string), "/welcome.html?user=ada") {
		t.Fatalf("submit click: %v", out)
	}
	// The new page has loaded: its script has run.
	if got := e.title(id); got != "Welcome" {
		t.Fatalf("title after submit: %q", got)
	}
}

func TestClickErrors(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	body := e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "selector": "#nope", "timeout": 200})
	if d := body["details"].(map[string]any); d["selector"] != "#nope" || body["sessionId"] != id {
		t.Fatalf("not found: %v", body)
	}
	for sel, reason := range map[string]string{"#hidden": "hidden", "#disabled": "disabled"} {
		body := e.fail(engine.ElementNotClickable, "click", map[string]any{"sessionId": id, "selector": sel, "timeout": 200})
		if d := body["details"].(map[string]any); d["reason"] != reason {
			t.Fatalf("%s: %v", sel, body)
		}
	}

	id = e.open("/covered.html")
	body = e.fail(engine.ElementNotClickable, "click", map[string]any{"sessionId": id, "selector": "#buy", "timeout": 200})
	d := body["details"].(map[string]any)
	if d["reason"] != "covered" || d["coveredBy"] != "div#cookie-banner" || !strings.Contains(body["message"].(string), "div#cookie-banner") {
		t.Fatalf("covered: %v", body)
	}
	if e.title(id) == "bought" {
		t.Fatal("covered click reached the button")
	}
	// force skips the hit test and clicks at the element's centre; the
	// banner receives it, as it would for a user.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#accept"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#buy"})
	if got := e.title(id); got != "bought" {
		t.Fatalf("after closing the banner: %q", got)
	}
}

func TestType(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ada"})
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": " lovelace", "delay": 5})
	if got := e.title(id); got != "user=ada lovelace" {
		t.Fatalf("appended typing: %q", got)
	}
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ünï", "clear": true})
	if got := e.title(id); got != "user=ünï" {
		t.Fatalf("clear + unicode: %q", got)
	}
	e.ok("type", map[string]any{"sessionId": id, "selector": "#notes", "text": "a\nb"})
	if got := e.title(id); got != `notes="a\nb"` {
		t.Fatalf("newline in textarea: %q", got)
	}
	e.ok("type", map[string]any{"sessionId": id, "selector": "#editor", "text": "rich"})
	if got := e.title(id); got != "editor=rich" {
		t.Fatalf("contenteditable: %q", got)
	}
	// Enter in a text field submits its form; type waits for the new page.
	out := e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "x\n", "clear": true})
	if out["url"] == nil || e.title(id) != "Welcome" {
		t.Fatalf("enter did not submit and wait: %v", out)
	}
}

func TestTypeErrors(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	for sel, reason := range map[string]string{
		"#ro": "readonly", "#off": "disabled", "#box": "not_a_text_field", "#count": "not_a_text_field", "h1": "not_a_text_field",
	} {
		body := e.fail(engine.ElementNotEditable, "type", map[string]any{"sessionId": id, "selector": sel, "text": "x", "timeout": 200})
		if d := body["details"].(map[string]any); d["reason"] != reason {
			t.Errorf("%s: %v", sel, body)
		}
	}
	e.fail(engine.ElementNotFound, "type", map[string]any{"sessionId": id, "selector": "#none", "text": "x", "timeout": 100})
}

func TestIsolationBetweenSessions(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	a, b := e.session(), e.session()
	e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/storage.html?set=alice"})
	out := e.ok("navigate", map[string]any{"sessionId": b, "url": site.URL + "/storage.html"})
	if want := `storage {"cookie":"","local":null,"session":null}`; out["title"] != want {
		t.Fatalf("session b sees a's state: %v", out["title"])
	}
	out = e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/storage.html"})
	if want := `storage {"cookie":"who=alice","local":"alice","session":"alice"}`; out["title"] != want {
		t.Fatalf("session a lost its state: %v", out["title"])
	}
}

func TestParallelSessions(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := range 10 {
		wg.Go(func() {
			id := e.session()
			name := fmt.Sprintf("agent%d", i)
			e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
			e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": name})
			if got := e.title(id); got != "user="+name {
				errs <- fmt.Errorf("%s: title %q", name, got)
			}
			out := e.ok("click", map[string]any{"sessionId": id, "selector": "#go"})
			if !strings.Contains(out["url"].(string), "user="+name) {
				errs <- fmt.Errorf("%s: %v", name, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDefaultSession(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	out := e.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	id := out["sessionId"].(string)
	e.ok("type", map[string]any{"selector": "#user", "text": "d"})
	if got := e.title(id); got != "user=d" {
		t.Fatalf("default session: %q", got)
	}
	list := e.ok("list_sessions", nil)["sessions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["name"] != "default" {
		t.Fatalf("list: %v", list)
	}
	e.fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": uuid.NewString(), "url": site.URL})
}

// closedPort returns a 127.0.0.1 address on which nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
