package enginetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// testForms: fill, select, check, uncheck and scroll act on
// testdata/site/actions.html, change what the page holds, fail with the
// same codes on every engine, and, as every action does, report what they
// caused: the page a <select>'s onchange navigated to, the tab a
// checkbox's change handler opened, the form it submitted.
func (h *harness) testForms(t *testing.T) {
	t.Run("Fill", h.testFill)
	t.Run("Select", h.testSelect)
	t.Run("Check", h.testCheck)
	t.Run("Scroll", h.testScroll)
	t.Run("SelectNavigates", h.testSelectNavigates)
	t.Run("CheckOpensTab", h.testCheckOpensTab)
	t.Run("CheckSubmits", h.testCheckSubmits)
	t.Run("SelectOpensDialog", h.testSelectOpensDialog)
}

// value reads fn's answer on the element sel names, without acting.
func value(t *testing.T, s engine.Session, selector, fn string) string {
	t.Helper()
	tg := sel(selector)
	raw, err := s.Evaluate(ctx(t), engine.EvalRequest{Target: &tg, Function: fn, Timeout: time.Second})
	if err != nil {
		t.Fatalf("Evaluate(%s): %v", selector, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v)
}

// quiet fails t unless res reports nothing beyond the page.
func quiet(t *testing.T, what string, res engine.ActionResult) {
	t.Helper()
	if res.Navigated || len(res.NewTabs) > 0 || len(res.Downloads) > 0 || res.Dialog != nil {
		t.Errorf("%s reports what it did not cause: %+v", what, res)
	}
}

func (h *harness) testFill(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.Fill(ctx(t), engine.FillRequest{Target: sel("#name"), Value: "Ada"})
	if err != nil {
		t.Fatalf("Fill: %v", err)
	}
	quiet(t, "fill", res)
	// The page saw an input event, and the field holds the value.
	wantTitle(t, s, "name=Ada")
	if v := value(t, s, "#name", "el => el.value"); v != "Ada" {
		t.Fatalf("#name = %q after fill", v)
	}
	if _, err := s.Fill(ctx(t), engine.FillRequest{Target: sel("#notes"), Value: "line 1\nline 2"}); err != nil {
		t.Fatalf("Fill(textarea): %v", err)
	}
	if v := value(t, s, "#notes", "el => el.value"); v != "line 1\nline 2" {
		t.Fatalf("#notes = %q after fill", v)
	}
	if _, err := s.Fill(ctx(t), engine.FillRequest{Target: sel("#editable"), Value: "new"}); err != nil {
		t.Fatalf("Fill(contenteditable): %v", err)
	}
	if v := value(t, s, "#editable", "el => el.textContent"); v != "new" {
		t.Fatalf("#editable = %q after fill", v)
	}
	for id, reason := range map[string]string{"#off": "disabled", "#ro": "readonly", "#plain": "not_a_text_field"} {
		_, err := s.Fill(ctx(t), engine.FillRequest{Target: sel(id), Value: "x"})
		wantError(t, err, engine.ElementNotEditable, map[string]any{"reason": reason, "selector": id})
	}
	_, err = s.Fill(ctx(t), engine.FillRequest{Target: sel("#missing"), Value: "x", Timeout: 200 * time.Millisecond})
	wantError(t, err, engine.ElementNotFound, nil)
}

func (h *harness) testSelect(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.Select(ctx(t), engine.SelectRequest{Target: sel("#color"), Values: []string{"Green"}})
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	quiet(t, "select", res.ActionResult)
	if len(res.Selected) != 1 || res.Selected[0] != (engine.Option{Value: "g", Label: "Green"}) {
		t.Fatalf("selected = %+v, want Green", res.Selected)
	}
	wantTitle(t, s, "color=g")
	res, err = s.Select(ctx(t), engine.SelectRequest{Target: sel("#many"), Values: []string{"1", "Three"}})
	if err != nil {
		t.Fatalf("Select(multiple): %v", err)
	}
	if len(res.Selected) != 2 || res.Selected[0].Value != "1" || res.Selected[1].Value != "3" {
		t.Fatalf("selected = %+v, want One and Three", res.Selected)
	}
	if v := value(t, s, "#many", "el => [...el.selectedOptions].map(o => o.value).join()"); v != "1,3" {
		t.Fatalf("#many holds %q", v)
	}
	_, err = s.Select(ctx(t), engine.SelectRequest{Target: sel("#color"), Values: []string{"purple"}})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "values", "optionCount": 3})
	_, err = s.Select(ctx(t), engine.SelectRequest{Target: sel("#color"), Values: []string{"r", "g"}})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "values"})
	_, err = s.Select(ctx(t), engine.SelectRequest{Target: sel("#name"), Values: []string{"x"}})
	wantError(t, err, engine.ElementNotEditable, map[string]any{"reason": "not_a_select"})
	_, err = s.Select(ctx(t), engine.SelectRequest{Target: sel("#color")})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "values"})
	// A failed select changed nothing.
	if v := value(t, s, "#color", "el => el.value"); v != "g" {
		t.Fatalf("#color = %q after failed selects", v)
	}
}

func (h *harness) testCheck(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#agree"), Checked: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	quiet(t, "check", res.ActionResult)
	if !res.Changed {
		t.Fatal("check of an unchecked box says it changed nothing")
	}
	wantTitle(t, s, "agree=true")
	if res, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#agree"), Checked: true}); err != nil || res.Changed {
		t.Fatalf("check of a checked box: changed %v, %v", res.Changed, err)
	}
	// A label with the box in it is checked through the box.
	if res, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#agree-label"), Checked: false}); err != nil || !res.Changed {
		t.Fatalf("uncheck through the label: changed %v, %v", res.Changed, err)
	}
	if v := value(t, s, "#agree", "el => el.checked"); v != "false" {
		t.Fatalf("#agree checked = %s after uncheck", v)
	}
	if _, err := s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#large"), Checked: true}); err != nil {
		t.Fatalf("check radio: %v", err)
	}
	if v := value(t, s, "#small", "el => el.checked"); v != "false" {
		t.Fatalf("checking #large left #small checked")
	}
	_, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#large"), Checked: false})
	wantError(t, err, engine.InvalidParameters, map[string]any{"reason": "radio"})
	_, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#stuck"), Checked: true})
	wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "state_unchanged"})
	_, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#plain"), Checked: true})
	wantError(t, err, engine.ElementNotEditable, map[string]any{"reason": "not_a_checkbox"})
	_, err = s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#missing"), Checked: true, Timeout: 200 * time.Millisecond})
	wantError(t, err, engine.ElementNotFound, nil)
}

func (h *harness) testScroll(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.Scroll(ctx(t), engine.ScrollRequest{Y: 500})
	if err != nil {
		t.Fatalf("Scroll: %v", err)
	}
	quiet(t, "scroll", res.ActionResult)
	if res.ScrollY != 500 || res.ScrollX != 0 || res.MovedY != 500 || res.MovedX != 0 {
		t.Fatalf("scrolled to %v,%v by %v,%v, want to 0,500 by 0,500", res.ScrollX, res.ScrollY, res.MovedX, res.MovedY)
	}
	if v := value(t, s, "body", "() => scrollY"); v != "500" {
		t.Fatalf("the page's scrollY = %s", v)
	}
	tg := sel("#bottom")
	if res, err = s.Scroll(ctx(t), engine.ScrollRequest{Target: &tg}); err != nil || res.ScrollY <= 500 {
		t.Fatalf("Scroll(#bottom) = %v, %v; want below 500", res.ScrollY, err)
	}
	// At the page's end, a scroll down moves it no further, and says so.
	end, err := s.Scroll(ctx(t), engine.ScrollRequest{Y: 1000000})
	if err != nil {
		t.Fatalf("Scroll to the end: %v", err)
	}
	res, err = s.Scroll(ctx(t), engine.ScrollRequest{Y: 500})
	if err != nil || res.MovedY != 0 || res.ScrollY != end.ScrollY {
		t.Fatalf("Scroll(500) at the end = moved %v to %v, %v; want moved 0, still at %v", res.MovedY, res.ScrollY, err, end.ScrollY)
	}
	if v := value(t, s, "body", "() => scrollY"); v != fmt.Sprint(end.ScrollY) {
		t.Fatalf("the page's scrollY = %s, want %v", v, end.ScrollY)
	}
	missing := sel("#missing")
	_, err = s.Scroll(ctx(t), engine.ScrollRequest{Target: &missing, Timeout: 200 * time.Millisecond})
	wantError(t, err, engine.ElementNotFound, nil)
}

// testSelectNavigates: a language picker whose onchange loads another page
// answers with that page, as a click on a link does.
func (h *harness) testSelectNavigates(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.Select(ctx(t), engine.SelectRequest{Target: sel("#lang"), Values: []string{"Français"}})
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	if !res.Navigated || !strings.HasSuffix(res.URL, "/welcome.html?user=fr") || res.Title != "Welcome" {
		t.Fatalf("select that navigates: navigated %v, url %q, title %q", res.Navigated, res.URL, res.Title)
	}
	if len(res.Selected) != 1 || res.Selected[0].Value != "fr" {
		t.Fatalf("selected = %+v", res.Selected)
	}
	wantTitle(t, s, "Welcome")
}

// testCheckOpensTab: a checkbox whose change handler calls window.open
// names the tab it opened, which the tabs call lists.
func (h *harness) testCheckOpensTab(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#popup"), Checked: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if res.Navigated || len(res.NewTabs) != 1 || res.NewTabs[0].Index != 1 {
		t.Fatalf("check that opens a tab: %+v", res)
	}
	testenv.Eventually(t, "the opened tab's page", func() (bool, error) {
		list := tabs(t, s, engine.TabsRequest{})
		return len(list.Tabs) == 2 && list.Current == 0 && strings.HasSuffix(list.Tabs[1].URL, "/form.html"), fmt.Errorf("tabs %+v", list)
	})
	if v := value(t, s, "#popup", "el => el.checked"); v != "true" {
		t.Fatalf("#popup checked = %s", v)
	}
}

// testCheckSubmits: a checkbox that submits its form reports the page the
// form loaded; the box is gone with its page, so the answer is the
// navigation.
func (h *harness) testCheckSubmits(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.SetChecked(ctx(t), engine.CheckRequest{Target: sel("#send"), Checked: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if !res.Changed || !res.Navigated || !strings.Contains(res.URL, "/welcome.html?user=checked") || res.Title != "Welcome" {
		t.Fatalf("check that submits: %+v", res)
	}
}

// testSelectOpensDialog: a change handler that opens a dialog is held by
// it, as a click's would be: the action answers with the open dialog, and
// the handler goes on once it is handled.
func (h *harness) testSelectOpensDialog(t *testing.T) {
	s := h.open(t, "/actions.html")
	res, err := s.Select(ctx(t), engine.SelectRequest{Target: sel("#ask"), Values: []string{"yes"}})
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	if d := res.Dialog; d == nil || d.Type != engine.DialogAlert || d.Message != "Sure?" || d.Handled != "" {
		t.Fatalf("select that opens an alert = %+v, want the open alert", res)
	}
	_, err = s.Fill(ctx(t), engine.FillRequest{Target: sel("#name"), Value: "x", Timeout: short})
	wantError(t, err, engine.DialogOpen, nil)
	if _, err := s.HandleDialog(ctx(t), engine.DialogRequest{Accept: true}); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, s, "asked yes")
}
