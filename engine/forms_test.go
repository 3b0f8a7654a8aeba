package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// former is a Session whose form actions navigate, and whose Reporter
// reports a tab around every action, as an engine's would.
type former struct {
	engine.Session
	watched int
	fill    engine.FillRequest
	check   engine.CheckRequest
	scroll  engine.ScrollRequest
}

var navigated = engine.ActionResult{Navigated: true, URL: "http://127.0.0.1/next"}

func (f *former) Watch(context.Context) func(context.Context, *engine.ActionResult) error {
	f.watched++
	return func(_ context.Context, res *engine.ActionResult) error {
		res.NewTabs = append(res.NewTabs, engine.NewTab{Index: 1, URL: "http://127.0.0.1/tab"})
		return nil
	}
}

func (f *former) Info(context.Context) engine.PageInfo {
	return engine.PageInfo{URL: navigated.URL, Title: "Next"}
}

func (f *former) Fill(_ context.Context, req engine.FillRequest) (engine.ActionResult, error) {
	f.fill = req
	return navigated, nil
}

func (f *former) Select(_ context.Context, req engine.SelectRequest) (engine.SelectResult, error) {
	return engine.SelectResult{ActionResult: navigated, Selected: []engine.Option{{Value: req.Values[0], Label: "L"}}}, nil
}

func (f *former) SetChecked(_ context.Context, req engine.CheckRequest) (engine.CheckResult, error) {
	f.check = req
	return engine.CheckResult{ActionResult: navigated, Changed: true}, nil
}

func (f *former) Scroll(_ context.Context, req engine.ScrollRequest) (engine.ScrollResult, error) {
	f.scroll = req
	return engine.ScrollResult{ActionResult: navigated, ScrollY: 300}, nil
}

// TestBoundFormActions: the form actions pass Bound as click does: they get
// the session's default waits, their results keep what the engine said
// (selected options, the new state, the scroll position) and gain what the
// Reporter saw and the new page's title.
func TestBoundFormActions(t *testing.T) {
	f := &former{}
	s := engine.BoundWith(f, engine.Timeouts{Action: 2 * time.Second, Navigation: 7 * time.Second})
	reported := func(what string, res engine.ActionResult) {
		t.Helper()
		if !res.Navigated || res.Title != "Next" || len(res.NewTabs) != 1 {
			t.Errorf("%s = %+v, want the navigation, its title and the reported tab", what, res)
		}
	}
	res, err := s.Fill(t.Context(), engine.FillRequest{Target: engine.Target{Selector: "#a"}, Value: "v"})
	if err != nil {
		t.Fatal(err)
	}
	reported("Fill", res)
	if f.fill.Timeout != 2*time.Second || f.fill.NavigationTimeout != 7*time.Second {
		t.Errorf("Fill got timeouts %v, %v; want the session's", f.fill.Timeout, f.fill.NavigationTimeout)
	}
	sel, err := s.Select(t.Context(), engine.SelectRequest{Target: engine.Target{Selector: "#s"}, Values: []string{"fr"}})
	if err != nil || len(sel.Selected) != 1 || sel.Selected[0].Value != "fr" {
		t.Fatalf("Select = %+v, %v", sel, err)
	}
	reported("Select", sel.ActionResult)
	chk, err := s.SetChecked(t.Context(), engine.CheckRequest{Target: engine.Target{Selector: "#c"}, Checked: true})
	if err != nil || !chk.Changed || f.check.Timeout != 2*time.Second {
		t.Fatalf("SetChecked = %+v, %v (request %+v)", chk, err, f.check)
	}
	reported("SetChecked", chk.ActionResult)
	scr, err := s.Scroll(t.Context(), engine.ScrollRequest{Y: 300})
	if err != nil || scr.ScrollY != 300 {
		t.Fatalf("Scroll = %+v, %v", scr, err)
	}
	reported("Scroll", scr.ActionResult)
	if f.watched != 4 {
		t.Errorf("the Reporter watched %d of 4 actions", f.watched)
	}
	// A select without values is refused before the engine is called.
	if _, err := s.Select(t.Context(), engine.SelectRequest{Target: engine.Target{Selector: "#s"}}); engine.AsError(err) == nil || engine.AsError(err).Code != engine.InvalidParameters {
		t.Errorf("Select without values: %v", err)
	}
}
