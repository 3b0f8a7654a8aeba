package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

// hookCall is one hook call as an observer saw it.
type hookCall struct {
	hook, tool, session string
	args                string // the arguments as JSON
	// url is the page's URL, read through the held session in After.
	url  string
	res  string // the result's text
	code string // the error's code, when the call failed
}

func (s hookCall) String() string { return s.hook + " " + s.tool }

// recorder is an Observer that writes down every hook call.
type recorder struct {
	mu       sync.Mutex
	hookCall []hookCall
}

func (r *recorder) Before(_ context.Context, c tools.Call) {
	r.add(hookCall{hook: "before", tool: c.Tool, session: c.SessionID, args: jsonOf(c.Args)})
}

func (r *recorder) After(ctx context.Context, c tools.Call, res *mcp.CallToolResult, err error) {
	s := hookCall{hook: "after", tool: c.Tool, session: c.SessionID, args: jsonOf(c.Args)}
	if c.Session != nil {
		// The session is still the call's: reading the page works.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		s.url = c.Session.Info(rctx).URL
		cancel()
	}
	if res != nil {
		for _, c := range res.Content {
			if t, ok := c.(mcp.TextContent); ok {
				s.res += t.Text
			}
		}
	}
	if err != nil {
		s.code = string(engine.AsError(err).Code)
	}
	r.add(s)
}

func (r *recorder) add(s hookCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hookCall = append(r.hookCall, s)
}

// take returns what was hookCall since the last take.
func (r *recorder) take() []hookCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.hookCall
	r.hookCall = nil
	return s
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// panicky is an Observer that panics in both hooks.
type panicky struct{}

func (panicky) Before(context.Context, tools.Call) { panic("observer before") }
func (panicky) After(context.Context, tools.Call, *mcp.CallToolResult, error) {
	panic("observer after")
}

// An observer sees every call before and after it, server tools and
// session tools, in order, with the session it ran on, which it can still
// read in After; a failing call shows it the error. An observer that
// panics fails neither the call nor the observers after it.
func TestObserverSeesCalls(t *testing.T) {
	rec := &recorder{}
	s := startHTTP(t, tools.Options{Observers: []tools.Observer{panicky{}, rec}})
	c := s.HTTPClient(t, httpservetest.KeyA)

	id := c.OK("create_session", nil)["sessionId"].(string)
	got := rec.take()
	if fmt.Sprint(got) != "[before create_session after create_session]" {
		t.Fatalf("create_session: observer saw %v", got)
	}
	if got[1].session != "" || got[1].code != "" || !strings.Contains(got[1].res, id) {
		t.Errorf("after create_session = %+v, want no session, no error and the result naming %s", got[1], id)
	}

	url := site.URL + "/form.html"
	c.OK("navigate", map[string]any{"sessionId": id, "url": url})
	got = rec.take()
	if fmt.Sprint(got) != "[before navigate after navigate]" {
		t.Fatalf("navigate: observer saw %v", got)
	}
	for _, g := range got {
		if g.session != id || !strings.Contains(g.args, url) {
			t.Errorf("%s: session %q, args %s; want %s and the URL", g, g.session, g.args, id)
		}
	}
	if got[1].url != url || !strings.Contains(got[1].res, url) {
		t.Errorf("after navigate: page %q, result %s; want %s", got[1].url, got[1].res, url)
	}

	// A session tool that fails on its session, a server tool that fails,
	// and a call whose arguments do not bind: After has the error, and
	// Before ran only for the calls whose work started.
	c.Fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "selector": "#nothing-here", "timeout": 200})
	c.Fail(engine.SessionNotFound, "close_session", map[string]any{"sessionId": "no-such-session"})
	c.Fail(engine.InvalidParameters, "navigate", map[string]any{"sessionId": id, "url": url, "bogus": 1})
	got = rec.take()
	if fmt.Sprint(got) != "[before click after click before close_session after close_session after navigate]" {
		t.Fatalf("failing calls: observer saw %v", got)
	}
	for _, want := range []struct {
		i       int
		code    engine.Code
		session string
	}{{1, engine.ElementNotFound, id}, {3, engine.SessionNotFound, ""}, {4, engine.InvalidParameters, ""}} {
		g := got[want.i]
		if g.code != string(want.code) || !strings.Contains(g.res, string(want.code)) || g.session != want.session {
			t.Errorf("%s: code %q, session %q, result %s; want %s on %q", g, g.code, g.session, g.res, want.code, want.session)
		}
	}
	if got[1].url != url {
		t.Errorf("after the failed click the observer read page %q, want %s", got[1].url, url)
	}
}

// Observers see a secret's placeholder, never the secret: in the
// arguments of the call that typed it and in the results that show it.
func TestObserverSeesNoSecret(t *testing.T) {
	rec := &recorder{}
	s := startHTTP(t, tools.Options{Observers: []tools.Observer{rec}})
	c := s.HTTPClient(t, httpservetest.KeyA)
	const password = "0bserved-Passw0rd"
	handle := secretHandle(t, c, password)
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	rec.take()

	c.OK("type", map[string]any{"sessionId": id, "selector": "#notes", "text": handle})
	// The field holds the password (its length says so), which the
	// result shows as the placeholder.
	c.OK("evaluate", map[string]any{"sessionId": id, "script": "const v = document.querySelector('#notes').value; v + '|' + v.length"})
	c.OK("get_value", map[string]any{"sessionId": id, "selector": "#notes"})
	got := rec.take()
	if fmt.Sprint(got) != "[before type after type before evaluate after evaluate before get_value after get_value]" {
		t.Fatalf("observer saw %v", got)
	}
	for _, g := range got {
		if strings.Contains(g.args+g.res+g.url, "Passw0rd") {
			t.Errorf("%s shows the observer the secret: args %s, result %s", g, g.args, g.res)
		}
	}
	if !strings.Contains(got[0].args, handle) || !strings.Contains(got[1].args, handle) {
		t.Errorf("type's arguments do not show the placeholder %s: %s / %s", handle, got[0].args, got[1].args)
	}
	if want := fmt.Sprintf("%s|%d", handle, len(password)); !strings.Contains(got[3].res, want) {
		t.Errorf("evaluate's result = %s, want %s: the secret typed, shown as its placeholder", got[3].res, want)
	}
	if !strings.Contains(got[5].res, handle) {
		t.Errorf("get_value's result does not show the placeholder %s: %s", handle, got[5].res)
	}
}
