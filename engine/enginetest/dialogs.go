package enginetest

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func (h *harness) testDialogs(t *testing.T) {
	s := h.open(t, "/dialogs.html")
	res := click(t, s, engine.ClickRequest{Target: sel("#alert")})
	if d := res.Dialog; d == nil || d.Type != engine.DialogAlert || d.Message != "Hello" || d.Handled != "" {
		t.Fatalf("alert click = %+v, want the open alert", res)
	}
	// While the dialog is open, page calls fail with DIALOG_OPEN.
	_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#confirm"), Timeout: short})
	e := wantError(t, err, engine.DialogOpen, nil)
	if d, ok := e.Details["dialog"].(*engine.Dialog); !ok || d.Type != engine.DialogAlert {
		t.Errorf("details.dialog = %#v, want the alert", e.Details["dialog"])
	}
	_, err = s.Type(ctx(t), engine.TypeRequest{Target: sel("#confirm"), Text: "x", Timeout: short})
	wantError(t, err, engine.DialogOpen, nil)
	_, err = s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/form.html")})
	wantError(t, err, engine.DialogOpen, nil)
	// A route added while a dialog is open applies at once (engine/cdp:
	// the browser, not the blocked page, holds it) or answers DIALOG_OPEN
	// (Playwright on Chromium, whose routing waits for the page) — never a
	// timeout, and never half: removing it later finds it exactly when it
	// was added.
	_, err = s.AddRoute(ctx(t), engine.Route{URLPattern: "**/never", Action: engine.RouteBlock})
	added := err == nil
	if !added {
		wantError(t, err, engine.DialogOpen, nil)
	}
	defer func() {
		removed, _, err := s.RemoveRoutes(ctx(t), "**/never")
		if err != nil || (removed == 1) != added {
			t.Errorf("RemoveRoutes after the dialog = %d, %v; the route was added: %v", removed, err, added)
		}
	}()

	if _, err := s.HandleDialog(ctx(t), engine.DialogRequest{Accept: true}); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, s, "alert closed")
	_, err = s.HandleDialog(ctx(t), engine.DialogRequest{Accept: true})
	wantError(t, err, engine.NoDialog, nil)

	res = click(t, s, engine.ClickRequest{Target: sel("#confirm")})
	if d := res.Dialog; d == nil || d.Type != engine.DialogConfirm || d.Message != "Proceed?" {
		t.Fatalf("confirm click = %+v", res)
	}
	if _, err := s.HandleDialog(ctx(t), engine.DialogRequest{Accept: false}); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, s, "cancelled")

	res = click(t, s, engine.ClickRequest{Target: sel("#prompt")})
	if d := res.Dialog; d == nil || d.Type != engine.DialogPrompt || d.DefaultValue != "Bob" {
		t.Fatalf("prompt click = %+v", res)
	}
	zed := "Zed"
	if _, err := s.HandleDialog(ctx(t), engine.DialogRequest{Accept: true, PromptText: &zed}); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, s, "name=Zed")

	// A dialog that opens while the element is being focused stops the
	// action at once, before any key: DIALOG_OPEN naming the dialog, never a
	// timeout.
	trap := h.open(t, "/form.html")
	evaluate(t, trap, engine.EvalRequest{Function: `() => { const i = document.createElement("input"); i.id = "trap"; i.setAttribute("onfocus", "this.onfocus = null; alert('trapped')"); document.body.prepend(i); }`})
	_, err = trap.Type(ctx(t), engine.TypeRequest{Target: sel("#trap"), Text: "abc"})
	e = wantError(t, err, engine.DialogOpen, nil)
	if d, ok := e.Details["dialog"].(*engine.Dialog); !ok || d.Message != "trapped" {
		t.Errorf("details.dialog = %#v, want the focus handler's alert", e.Details["dialog"])
	}
	if _, err := trap.HandleDialog(ctx(t), engine.DialogRequest{Accept: true}); err != nil {
		t.Fatal(err)
	}
	if v := evaluate(t, trap, engine.EvalRequest{Function: `() => document.getElementById("trap").value`}); v != `""` {
		t.Errorf("the input holds %s after the stopped type, want nothing", v)
	}
}
