package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// replica is the built binary serving MCP over HTTP on a Grid.
type replica = httpBinary

// startReplica starts the binary with --grid-url and more, and waits until
// it answers.
func startReplica(t *testing.T, g *testenv.Grid, more ...string) *replica {
	t.Helper()
	return startHTTPBinary(t, gridArgs(t, g, more...)...)
}

// listed reports whether list_sessions of c shows id.
func listed(c *httpservetest.Client, id string) bool {
	for _, s := range c.OK("list_sessions", nil)["sessions"].([]any) {
		if s.(map[string]any)["sessionId"] == id {
			return true
		}
	}
	return false
}

// TestGridReplicas runs two replicas of the binary on one Grid: a session
// created through replica A is used through replica B after A is killed
// with SIGKILL, with its page (URL, a typed value, a DOM change) and
// cookies as they were; list_sessions on B shows it to its owner only,
// and another key cannot use it.
func TestGridReplicas(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	a, b := startReplica(t, g), startReplica(t, g)

	ca := a.client(t, httpservetest.KeyA)
	id := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?from=a"})
	ca.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ada"})
	ca.OK("evaluate", map[string]any{"sessionId": id, "script": "document.cookie = 'replica=a; path=/'; document.body.dataset.mark = 'set on a'; 1"})

	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	a.cmd.Wait()

	cb, other := b.client(t, httpservetest.KeyA), b.client(t, httpservetest.KeyB)
	if listed(other, id) {
		t.Fatalf("list_sessions of another key on replica B shows %s", id)
	}
	other.Fail(engine.SessionNotFound, "get_text", map[string]any{"sessionId": id, "selector": "h1"})
	if !listed(cb, id) {
		t.Fatalf("list_sessions of the owner on replica B does not show %s", id)
	}
	out := cb.OK("evaluate", map[string]any{"sessionId": id,
		"script": "[location.search, document.querySelector('#user').value, document.body.dataset.mark, document.cookie]"})
	if got, want := fmt.Sprint(out["result"]), "[?from=a ada set on a replica=a]"; got != want {
		t.Fatalf("the page on replica B = %s, want %s", got, want)
	}
	// The session carries on in B.
	cb.OK("type", map[string]any{"sessionId": id, "selector": "#pass", "text": "x"})
	other.Fail(engine.SessionNotFound, "close_session", map[string]any{"sessionId": id})

	cb.OK("close_session", map[string]any{"sessionId": id})
	testenv.Eventually(t, "the Grid session to be deleted with ours", func() (bool, error) {
		left := g.Sessions(t)
		return len(left) == 0, fmt.Errorf("left on the Grid: %v", left)
	})
}

// TestGridReplicaExpiry: a session's idle expiry on replica A, while
// replica B uses the session (its heartbeat is fresh), lets go of it
// without deleting it from the Grid; B carries on with the page, and the
// session ends when B closes it.
func TestGridReplicaExpiry(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	a, b := startReplica(t, g, "--session-timeout", "2000"), startReplica(t, g)
	ca, cb := a.client(t, httpservetest.KeyA), b.client(t, httpservetest.KeyA)
	id := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?held=b"})
	cb.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "bob"}) // B adopts it

	testenv.Eventually(t, "replica A's expiry to let go of the session", func() (bool, error) {
		return a.logged("letting go of the Grid session"), errors.New("not yet")
	})
	if g.Session(t, id) == nil {
		t.Fatalf("A's expiry deleted the Grid session that B holds")
	}
	out := cb.OK("evaluate", map[string]any{"sessionId": id, "script": "[location.search, document.querySelector('#user').value]"})
	if got := fmt.Sprint(out["result"]); got != "[?held=b bob]" {
		t.Fatalf("the page on B after A's expiry = %s, want [?held=b bob]", got)
	}
	cb.OK("close_session", map[string]any{"sessionId": id})
	testenv.Eventually(t, "the Grid session to be deleted with B's close", func() (bool, error) {
		return g.Session(t, id) == nil, errors.New("still on the Grid")
	})
}

// TestGridReplicaByName: replica B adopts a session by its name, both the
// default session (calls with no sessionId) and a named one, and finds the
// pages replica A left there; another key's calls without a sessionId get
// a default session of their own.
func TestGridReplicaByName(t *testing.T) {
	g := testenv.StartGrid(t, "--max-sessions", "3", "--override-max-sessions", "true")
	site := testsite.Start()
	defer site.Close()
	a, b := startReplica(t, g), startReplica(t, g)
	ca, cb := a.client(t, httpservetest.KeyA), b.client(t, httpservetest.KeyA)
	ca.OK("navigate", map[string]any{"url": site.URL + "/form.html?session=default"})
	named := ca.OK("create_session", map[string]any{"name": "work"})["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": "work", "url": site.URL + "/form.html?session=work"})

	where := map[string]any{"script": "location.search"}
	if got := cb.OK("evaluate", where)["result"]; got != "?session=default" {
		t.Fatalf("the default session on B shows %v, want A's ?session=default", got)
	}
	where["sessionId"] = "work"
	if got := cb.OK("evaluate", where)["result"]; got != "?session=work" {
		t.Fatalf("session work on B shows %v, want A's ?session=work", got)
	}
	if len(g.Sessions(t)) != 2 {
		t.Fatalf("B made sessions of its own: %v", g.Sessions(t))
	}
	other := b.client(t, httpservetest.KeyB)
	if got := other.OK("evaluate", map[string]any{"script": "location.href"})["result"]; got != "about:blank" {
		t.Fatalf("another key's default session shows %v, want a new blank one", got)
	}
	if !listed(cb, named) {
		t.Fatalf("list_sessions on B does not show %s", named)
	}
	cb.OK("close_session", map[string]any{"sessionId": "work"})
	cb.OK("close_session", map[string]any{"sessionId": "default"})
	other.OK("close_session", map[string]any{"sessionId": "default"})
	testenv.Eventually(t, "the Grid sessions to be deleted", func() (bool, error) {
		left := g.Sessions(t)
		return len(left) == 0, fmt.Errorf("left on the Grid: %v", left)
	})
}

// TestGridReplicasAdoptAtOnce: replicas B and C adopt the session replica
// A created at the same moment; both serve the one page (what B types, C
// reads), and once C closes it B's calls answer SESSION_NOT_FOUND (it was
// closed), not BROWSER_CRASHED nor an error of the caller's script.
func TestGridReplicasAdoptAtOnce(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	a, b, c := startReplica(t, g), startReplica(t, g), startReplica(t, g)
	ca := a.client(t, httpservetest.KeyA)
	id := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?at=once"})
	cb, cc := b.client(t, httpservetest.KeyA), c.client(t, httpservetest.KeyA)

	var wg sync.WaitGroup
	res := make([]map[string]any, 2)
	errs := make([]bool, 2)
	for i, cl := range []*httpservetest.Client{cb, cc} {
		wg.Go(func() {
			res[i], errs[i] = cl.Call("evaluate", map[string]any{"sessionId": id, "script": "location.search"})
		})
	}
	wg.Wait()
	for i := range res {
		if errs[i] || res[i]["result"] != "?at=once" {
			t.Fatalf("adopting at once, replica %d: %v", i, res[i])
		}
	}
	cb.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "from b"})
	if got := cc.OK("evaluate", map[string]any{"sessionId": id, "script": "document.querySelector('#user').value"})["result"]; got != "from b" {
		t.Fatalf("C reads %v where B typed %q: not the one page", got, "from b")
	}
	if n := len(g.Sessions(t)); n != 1 {
		t.Fatalf("the Grid holds %d sessions, want the one", n)
	}

	cc.OK("close_session", map[string]any{"sessionId": id})
	testenv.Eventually(t, "the Grid session to be deleted with C's close", func() (bool, error) {
		return g.Session(t, id) == nil, errors.New("still on the Grid")
	})
	testenv.Eventually(t, "B's calls on the closed session to fail", func() (bool, error) {
		out, isErr := cb.Call("get_text", map[string]any{"sessionId": id, "selector": "h1"})
		if isErr && out["errorCode"] != string(engine.SessionNotFound) {
			t.Fatalf("B after C closed the session: %v, want SESSION_NOT_FOUND", out)
		}
		return isErr, fmt.Errorf("get_text: %v", out)
	})
}

// TestGridReplicaClosedElsewhere: a session created and used through
// replica A, then closed through replica B, answers SESSION_NOT_FOUND
// through A, saying it was closed (not BROWSER_CRASHED: its browser did
// not crash), every time; A drops its attachment, and list_sessions
// through A no longer shows it, whether or not A has noticed yet.
func TestGridReplicaClosedElsewhere(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	a, b := startReplica(t, g), startReplica(t, g)
	ca, cb := a.client(t, httpservetest.KeyA), b.client(t, httpservetest.KeyA)
	id := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?on=a"})
	ca.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "ada"})

	cb.OK("close_session", map[string]any{"sessionId": id})
	if g.Session(t, id) != nil {
		t.Fatalf("close_session through B left the Grid session")
	}
	if listed(ca, id) {
		t.Fatalf("list_sessions through A shows %s after B closed it", id)
	}
	for range 2 {
		out, isErr := ca.Call("get_text", map[string]any{"sessionId": id, "selector": "h1"})
		if !isErr || out["errorCode"] != string(engine.SessionNotFound) || !strings.Contains(fmt.Sprint(out["message"]), "was closed") {
			t.Fatalf("A after B closed the session: %v, want SESSION_NOT_FOUND saying it was closed", out)
		}
	}
	testenv.Eventually(t, "A to drop its attachment", func() (bool, error) {
		return a.logged("the Grid session was closed elsewhere"), errors.New("not logged")
	})
	if listed(ca, id) {
		t.Fatalf("list_sessions through A shows %s after its call failed", id)
	}
	// A is not stuck: a new session through A works.
	id2 := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id2, "url": site.URL + "/form.html"})
	ca.OK("close_session", map[string]any{"sessionId": id2})
	testenv.Eventually(t, "the Grid sessions to be deleted", func() (bool, error) {
		left := g.Sessions(t)
		return len(left) == 0, fmt.Errorf("left on the Grid: %v", left)
	})
}
