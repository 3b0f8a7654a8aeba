package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// eachEngineWith is eachEngine with the server's options.
func eachEngineWith(t *testing.T, opts tools.Options, f func(t *testing.T, e *env)) {
	t.Helper()
	opts.Version = "test"
	t.Run("cdp", func(t *testing.T) {
		f(t, newEnvWith(t, sessions.Config{}, opts))
	})
	t.Run("pw", func(t *testing.T) {
		f(t, newEnvOnWith(t, firefoxEngine(t), sessions.Config{}, opts))
	})
}

var testingCaps = []tools.Group{tools.Testing, tools.State, tools.Vision, tools.Network}

// TestCodegenInActionResults: with --caps testing, every action's result
// carries the Playwright line that does the same, and the page is as the
// action left it.
func TestCodegenInActionResults(t *testing.T) {
	eachEngineWith(t, tools.Options{Caps: testingCaps}, func(t *testing.T, e *env) {
		id := e.session()
		url := site.URL + "/todo.html"
		code := func(out map[string]any) string {
			t.Helper()
			s, _ := out["code"].(string)
			return s
		}
		steps := []struct {
			tool string
			args map[string]any
			want string
		}{
			{"navigate", map[string]any{"url": url}, "await page.goto('" + url + "');"},
			{"fill", map[string]any{"selector": "#task", "value": "milk"}, "await LOC.fill('milk');"},
			{"select", map[string]any{"selector": "#prio", "values": []string{"High"}}, "await LOC.selectOption('High');"},
			{"check", map[string]any{"selector": "#urgent"}, "await LOC.check();"},
			{"hover", map[string]any{"selector": "#addbtn"}, "await LOC.hover();"},
			{"click", map[string]any{"selector": "#addbtn"}, "await LOC.click();"},
			{"type", map[string]any{"selector": "#task", "text": "eggs\n", "clear": true}, "await LOC.fill('eggs');\nawait LOC.press('Enter');"},
			{"press", map[string]any{"key": "Tab"}, "await page.keyboard.press('Tab');"},
			{"scroll", map[string]any{"selector": "#clear"}, "await LOC.scrollIntoViewIfNeeded();"},
			{"wait_for", map[string]any{"text": "2 tasks"}, "await expect(page.getByText('2 tasks').first()).toBeVisible();"},
			{"wait_for_selector", map[string]any{"selector": "#list li", "state": "attached"}, "await LOC.waitFor({ state: 'attached' });"},
			{"reload", map[string]any{}, "await page.reload();"},
			{"click", map[string]any{"selector": "xpath=//button[@id='clear']", "force": true}, "await LOC.click({ force: true });"},
			{"mouse_click", map[string]any{"x": 5, "y": 5}, "await page.mouse.click(5, 5);"},
			// An element asserted hidden that is not there has its selector
			// as its locator.
			{"verify_element", map[string]any{"selector": "#nothing", "state": "hidden"}, "await expect(page.locator('#nothing')).toBeHidden();"},
			{"verify_element", map[string]any{"role": "heading", "name": "Todo"}, "await expect(page.getByRole('heading', { name: 'Todo', exact: true })).toBeVisible();"},
			{"verify_list", map[string]any{"selector": "#prio", "items": []string{"Low", "High"}}, "await expect(LOC.getByRole('option')).toContainText(['Low', 'High']);"},
		}
		if strings.HasSuffix(t.Name(), "/cdp") {
			// Firefox over BiDi has no double click (UNSUPPORTED).
			steps = append(steps, struct {
				tool string
				args map[string]any
				want string
			}{"click", map[string]any{"selector": "#clear", "clickCount": 2}, "await LOC.dblclick();"})
		}
		for _, s := range steps {
			s.args["sessionId"] = id
			if got := code(e.ok(s.tool, s.args)); !codeRe("^" + s.want + "$").MatchString(got) {
				t.Errorf("%s code = %q, want %q", s.tool, got, s.want)
			}
			if s.tool == "wait_for_selector" {
				// The page did what the code says: two tasks added, the
				// second urgent and of high priority.
				if got := e.ok("get_text", map[string]any{"sessionId": id, "selector": "#list"})["text"]; got != "milk (hi, urgent)eggs (hi, urgent)" && got != "milk (hi, urgent)\neggs (hi, urgent)" {
					t.Errorf("list = %q", got)
				}
			}
		}
		// The reload emptied the list (the title is the page's own again);
		// Chromium's double click on Clear all counted the tasks (0).
		want := "Todo"
		if strings.HasSuffix(t.Name(), "/cdp") {
			want = "Todo (0)"
		}
		if got := e.title(id); got != want {
			t.Errorf("title at the end = %q, want %q", got, want)
		}
		// Tools that are not actions carry no code, and a failed action
		// is an error without one.
		if out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "h1"}); out["code"] != nil {
			t.Errorf("get_text carries code: %v", out)
		}
		e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "selector": "#missing", "timeout": 200})
	})
}

// TestCodegenSettings: --codegen none (the default) adds nothing, python
// writes Python, and --caps all alone adds no code.
func TestCodegenSettings(t *testing.T) {
	url := site.URL + "/todo.html"
	for _, c := range []struct {
		name string
		opts tools.Options
		want string
	}{
		{"default", tools.Options{}, ""},
		{"all", tools.Options{Caps: []tools.Group{tools.All}}, ""},
		{"testing-none", tools.Options{Caps: []tools.Group{tools.Testing}, Codegen: codegen.None}, ""},
		{"python", tools.Options{Codegen: codegen.Python}, `LOC.click()`},
		{"testing-python", tools.Options{Caps: []tools.Group{tools.Testing}, Codegen: codegen.Python}, `LOC.click()`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Version = "test"
			e := newEnvWith(t, sessions.Config{}, c.opts)
			id := e.open("/todo.html")
			out := e.ok("click", map[string]any{"sessionId": id, "selector": "#addbtn"})
			if got, _ := out["code"].(string); !codeRe("^" + c.want + "$").MatchString(got) {
				t.Errorf("click code = %q, want %q", got, c.want)
			}
			if _, ok := out["code"]; !ok && c.want != "" {
				t.Errorf("no code in %v", out)
			}
			_ = url
		})
	}
}

// TestCodegenKeepsSecrets: a secret typed through its placeholder is an
// environment variable in the code and the exported test, never the
// secret itself.
func TestCodegenKeepsSecrets(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.Testing}})
	const password = "s3cret-Passw0rd"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := e.c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "authenticate", Arguments: map[string]string{
		"url": site.URL + "/form.html", "username": "ada", "password": password}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(mcp.TextContent).Text
	i := strings.Index(text, "{{secret:")
	handle := text[i : i+strings.Index(text[i:], "}}")+2]
	id := e.open("/form.html")
	out := e.ok("type", map[string]any{"sessionId": id, "selector": "#pass", "text": handle})
	if got, want := fmt.Sprint(out["code"]), "await LOC.pressSequentially(process.env.BROWSERMCP_SECRET_1);"; !codeRe("^" + want + "$").MatchString(got) {
		t.Errorf("type code = %v, want %s", got, want)
	}
	out = e.ok("fill", map[string]any{"sessionId": id, "selector": "#user", "value": handle})
	if got, want := fmt.Sprint(out["code"]), "await LOC.fill(process.env.BROWSERMCP_SECRET_1);"; !codeRe("^" + want + "$").MatchString(got) {
		t.Errorf("fill code = %v, want %s", got, want)
	}
	// The field got the password itself.
	if got := e.title(id); got != "user="+handle {
		t.Errorf("title = %q, want the password, shown as its placeholder", got)
	}
	exp := e.ok("export_test", map[string]any{"sessionId": id})
	b, err := os.ReadFile(exp["path"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), password) || strings.Contains(string(b), "{{secret:") || !strings.Contains(string(b), "process.env.BROWSERMCP_SECRET_1") {
		t.Fatalf("exported test:\n%s", b)
	}
}

// TestExportTest records a session and exports it in both languages, with
// its failures: before any navigation, a path outside the output
// directory, an unknown language.
func TestExportTest(t *testing.T) {
	eachEngineWith(t, tools.Options{Caps: []tools.Group{tools.Testing, tools.State}}, func(t *testing.T, e *env) {
		id := e.session()
		e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id})
		// A step before the first navigation is not replayed.
		e.ok("press", map[string]any{"sessionId": id, "key": "Escape"})
		body := e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id})
		if d, _ := body["details"].(map[string]any); d["reason"] != "nothing_recorded" {
			t.Errorf("export_test before navigating: %v", body)
		}
		url := site.URL + "/todo.html"
		e.ok("navigate", map[string]any{"sessionId": id, "url": url})
		e.ok("fill", map[string]any{"sessionId": id, "selector": "#task", "value": "milk"})
		e.ok("click", map[string]any{"sessionId": id, "selector": "#addbtn"})
		e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "selector": "#missing", "timeout": 200})
		e.ok("get_text", map[string]any{"sessionId": id, "selector": "#list"})

		out := e.ok("export_test", map[string]any{"sessionId": id})
		path, _ := out["path"].(string)
		if want := filepath.Join(e.out, "tests"); filepath.Dir(path) != want && !strings.HasSuffix(filepath.Dir(path), filepath.Join(filepath.Base(e.out), "tests")) {
			t.Errorf("path = %s, want one in %s", path, want)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := "import { test, expect } from '@playwright/test';\n\ntest('recorded session " + id + "', async ({ page }) => {\n" +
			"  await page.goto('" + url + "');\n" +
			"  await LOC.fill('milk');\n" +
			"  await LOC.click();\n" +
			"});\n"
		if !codeRe(want+"$").Match(b) || out["code"] != string(b) || out["steps"] != float64(3) || out["language"] != "typescript" {
			t.Errorf("export_test = %v\nfile:\n%s\nwant it to end with:\n%s", out, b, want)
		}

		py := e.ok("export_test", map[string]any{"sessionId": id, "language": "python", "path": "e2e/test_todo.py"})
		if p, _ := py["path"].(string); !strings.HasSuffix(p, filepath.Join("e2e", "test_todo.py")) {
			t.Errorf("python path = %v", py["path"])
		}
		if c, _ := py["code"].(string); !strings.Contains(c, "def test_recorded_session_") || !codeRe("    LOC.click()\n").MatchString(c) {
			t.Errorf("python export:\n%s", c)
		}

		// A path outside the output directory is refused as save_state's is.
		outside := filepath.Join(t.TempDir(), "x.spec.ts")
		got := e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id, "path": outside})
		same := e.fail(engine.InvalidParameters, "save_state", map[string]any{"sessionId": id, "path": outside})
		if strings.Replace(got["message"].(string), "x.spec.ts", "", 1) == "" || got["details"].(map[string]any)["field"] != "path" ||
			!strings.Contains(same["message"].(string), "is outside the directories") || !strings.Contains(got["message"].(string), "is outside the directories") {
			t.Errorf("export_test outside: %v\nsave_state: %v", got, same)
		}
		if _, err := os.Stat(outside); err == nil {
			t.Error("the refused file was written")
		}
		e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id, "path": "../escape.spec.ts"})
		e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id, "language": "java"})
	})
}

// TestExportTestComments: what cannot be replayed is a comment that says
// why, and a session's recording goes with it.
func TestExportTestComments(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.Testing}})
	id := e.ok("create_session", map[string]any{"name": "rec"})["sessionId"].(string)
	// A script run before the first navigation is not replayed, and the
	// test says so before its goto.
	e.ok("evaluate", map[string]any{"sessionId": id, "script": "1"})
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/dialogs.html"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#confirm"})
	out := e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true})
	if c, _ := out["code"].(string); c != "// the dialog was accepted here: the exported test runs page.once('dialog', (dialog) => dialog.accept()); before the action that opened it" {
		t.Errorf("handle_dialog code = %q", c)
	}
	if got := e.title(id); got != "confirmed" {
		t.Errorf("title = %q", got)
	}
	exp := e.ok("export_test", map[string]any{"sessionId": id})
	if c, _ := exp["code"].(string); !codeRe("  page.once('dialog', (dialog) => dialog.accept());\n  await LOC.click();\n});").MatchString(c) ||
		!strings.Contains(c, "  // evaluate ran a script here: not replayed, as its effect is not an action a user takes\n  await page.goto(") {
		t.Errorf("export:\n%s", c)
	}
	e.ok("close_session", map[string]any{"sessionId": id})
	id2 := e.ok("create_session", map[string]any{"name": "rec"})["sessionId"].(string)
	e.fail(engine.InvalidParameters, "export_test", map[string]any{"sessionId": id2})
}

// TestExportRoleAssertionInCrossOriginFrame: verify_element by role and
// name passes on a button of a cross-origin frame, which no frameLocator
// chain reaches, so the recorded step is a comment saying why, not an
// expect on page.getByRole that would look for it in the page and fail;
// the same button of a same-origin frame gets its frameLocator.
func TestExportRoleAssertionInCrossOriginFrame(t *testing.T) {
	eachEngineWith(t, tools.Options{Caps: []tools.Group{tools.Testing}}, func(t *testing.T, e *env) {
		id := e.open("/frames.html")
		e.waitSnap(id, `button "Inner cross"`)
		out := e.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Inner cross"})
		if c, _ := out["code"].(string); !strings.HasPrefix(c, "// verify_element on button \"Inner cross\": no locator (") || !strings.HasSuffix(c, "this step is not replayed") {
			t.Errorf("verify_element in a cross-origin frame: code %q", c)
		}
		out = e.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Inner same"})
		if c := out["code"]; c != "await expect(page.frameLocator('#same').getByRole('button', { name: 'Inner same', exact: true })).toBeVisible();" {
			t.Errorf("verify_element in a same-origin frame: code %v", c)
		}
		exp := e.ok("export_test", map[string]any{"sessionId": id})
		if c, _ := exp["code"].(string); strings.Contains(c, "page.getByRole('button', { name: 'Inner cross'") {
			t.Errorf("the export looks for the cross-origin frame's button in the page:\n%s", c)
		}
	})
}

// TestExportRoleAssertionInFrameWithoutRef: verify_element by role and
// name on an element of a same-origin iframe that the outline gives no
// ref (a heading) gets the frameLocator chain of an element of the same
// document that has one; in a frame where none has, the step is a comment
// saying it is not replayed, not an expect on page.getByRole that would
// look for the heading in the page and fail.
func TestExportRoleAssertionInFrameWithoutRef(t *testing.T) {
	eachEngineWith(t, tools.Options{Caps: []tools.Group{tools.Testing}}, func(t *testing.T, e *env) {
		id := e.open("/framed-text.html")
		e.waitSnap(id, `heading "Delivery note"`)
		out := e.ok("verify_element", map[string]any{"sessionId": id, "role": "heading", "name": "Card details"})
		if c := out["code"]; c != "await expect(page.frameLocator('#card').getByRole('heading', { name: 'Card details', exact: true })).toBeVisible();" {
			t.Errorf("verify_element on a heading of a frame with a button: code %v", c)
		}
		out = e.ok("verify_element", map[string]any{"sessionId": id, "role": "heading", "name": "Delivery note"})
		if c, _ := out["code"].(string); !strings.HasPrefix(c, "// verify_element on heading \"Delivery note\": no locator (") {
			t.Errorf("verify_element on a heading of a frame without refs: code %q", c)
		}
		out = e.ok("verify_element", map[string]any{"sessionId": id, "role": "heading", "name": "Order"})
		if c := out["code"]; c != "await expect(page.getByRole('heading', { name: 'Order', exact: true })).toBeVisible();" {
			t.Errorf("verify_element on the page's heading: code %v", c)
		}
	})
}

// TestExportStepsOnOtherTabs: the test drives the tab of the session's
// first navigation; a step on another tab (tabs new or select) is a
// comment saying it is not replayed, not a line that would run on the
// test's page, and the page's steps are replayed again once it is
// current, also after a tab before it closed.
func TestExportStepsOnOtherTabs(t *testing.T) {
	eachEngineWith(t, tools.Options{Caps: []tools.Group{tools.Testing}}, func(t *testing.T, e *env) {
		id := e.session()
		e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/todo.html"})
		url := site.URL + "/todo.html"
		if c := e.ok("navigate", map[string]any{"sessionId": id, "url": url})["code"]; c != "await page.goto('"+url+"');" {
			t.Errorf("the first navigation, on tab 1: code %v", c)
		}
		e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": url})
		if c := e.ok("fill", map[string]any{"sessionId": id, "selector": "#task", "value": "elsewhere"})["code"]; c != "// fill on tab 2, not the one this test drives: not replayed" {
			t.Errorf("fill on another tab: code %v", c)
		}
		e.ok("tabs", map[string]any{"sessionId": id, "action": "close", "index": 0})
		e.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": 0})
		if c, _ := e.ok("fill", map[string]any{"sessionId": id, "selector": "#task", "value": "here"})["code"].(string); !codeRe("^await LOC.fill('here');$").MatchString(c) {
			t.Errorf("fill on the test's tab, now 0: code %q", c)
		}
		exp, _ := e.ok("export_test", map[string]any{"sessionId": id})["code"].(string)
		if strings.Contains(exp, "elsewhere') ") || strings.Contains(exp, ".fill('elsewhere')") || !strings.Contains(exp, ".fill('here');") {
			t.Errorf("export:\n%s", exp)
		}
	})
}

// codeRe matches the code want, in which LOC stands for any locator: what
// locate answers for a selector is the locator generator's to choose.
// "^" and "$" at its ends anchor it.
func codeRe(want string) *regexp.Regexp {
	start, end := strings.HasPrefix(want, "^"), strings.HasSuffix(want, "$")
	want = strings.TrimSuffix(strings.TrimPrefix(want, "^"), "$")
	re := strings.ReplaceAll(regexp.QuoteMeta(want), "LOC", `page\..+?`)
	if start {
		re = "^" + re
	}
	if end {
		re += "$"
	}
	return regexp.MustCompile(re)
}
