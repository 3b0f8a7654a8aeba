package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// reporting is an engine's session that has something to say about every
// part of the contract beyond the page: its clicks open a tab, its policy
// refused a request, and it says when its browser is gone and whether
// another server ended it.
type reporting struct {
	engine.Session // nil: the test calls only what reporting defines
	gone           chan struct{}
}

func (r *reporting) Click(context.Context, engine.ClickRequest) (engine.ActionResult, error) {
	return engine.ActionResult{ReceivedBy: "button#popup"}, nil
}

func (r *reporting) Watch(context.Context) func(context.Context, *engine.ActionResult) error {
	return func(_ context.Context, res *engine.ActionResult) error {
		res.NewTabs = append(res.NewTabs, engine.NewTab{Index: 1, URL: "http://127.0.0.1/popup"})
		res.ConsoleErrors = 2
		return nil
	}
}

func (r *reporting) BlockedRequests() []engine.BlockedRequest {
	return []engine.BlockedRequest{{URL: "http://blocked.example/", Reason: "not allowed"}}
}

func (r *reporting) Gone() <-chan struct{}               { return r.gone }
func (r *reporting) EndedElsewhere(context.Context) bool { return true }

// wrapper is a session that wraps an engine's by embedding it, as
// engine/grid's does engine/cdp's, and adds nothing of its own.
type wrapper struct{ engine.Session }

// TestWrappedSessionKeepsItsReports: what a session offers beyond its page
// (what an action caused, what the policy refused, that its browser is
// gone or it was ended elsewhere) reaches the caller through a wrapper
// that embeds it and through Bound. Found by type assertion, it stopped at
// the wrapper: a Grid session reported no tabs, downloads or console errors.
func TestWrappedSessionKeepsItsReports(t *testing.T) {
	inner := &reporting{gone: make(chan struct{})}
	s := engine.Bound(wrapper{inner})
	res, err := s.Click(t.Context(), engine.ClickRequest{Target: engine.Target{Selector: "#popup"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NewTabs) != 1 || res.NewTabs[0].Index != 1 || res.ConsoleErrors != 2 || res.ReceivedBy != "button#popup" {
		t.Fatalf("the wrapped session's click reports %+v; want its tab and console errors", res)
	}
	if got := s.BlockedRequests(); !slices.Equal(got, inner.BlockedRequests()) {
		t.Fatalf("BlockedRequests through the wrapper = %+v, want %+v", got, inner.BlockedRequests())
	}
	if s.Gone() != (<-chan struct{})(inner.gone) || !s.EndedElsewhere(t.Context()) {
		t.Fatal("Gone and EndedElsewhere through the wrapper are not the engine's")
	}
}

// quiet is an engine's session with nothing to report: it embeds
// NothingToReport.
type quiet struct {
	engine.NothingToReport
	wrapper // the page calls; only Click is called
}

func (quiet) Click(context.Context, engine.ClickRequest) (engine.ActionResult, error) {
	return engine.ActionResult{ReceivedBy: "button#quiet"}, nil
}

// TestNothingToReport: a session that embeds NothingToReport acts, and
// reports nothing beyond what the action itself said.
func TestNothingToReport(t *testing.T) {
	s := engine.Bound(quiet{})
	res, err := s.Click(t.Context(), engine.ClickRequest{Target: engine.Target{Selector: "#quiet"}})
	if err != nil || res.ReceivedBy != "button#quiet" || len(res.NewTabs) != 0 || len(res.Downloads) != 0 || res.ConsoleErrors != 0 {
		t.Fatalf("Click = %+v, %v; want a bare success", res, err)
	}
	if s.BlockedRequests() != nil || s.Gone() != nil || s.EndedElsewhere(t.Context()) {
		t.Fatal("NothingToReport says something")
	}
}
