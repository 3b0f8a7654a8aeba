package codegen

import (
	"strings"
	"testing"
)

func TestStepCode(t *testing.T) {
	btn := &Locator{Kind: ByRole, Role: "button", Name: "Add"}
	task := &Locator{Kind: ByLabel, Value: "Task"}
	list := &Locator{Kind: ByCSS, Value: "#list"}
	cases := []struct {
		s      Step
		ts, py string
	}{
		{Step{Action: Goto, URL: "http://127.0.0.1/a'b"}, `await page.goto('http://127.0.0.1/a\'b');`, `page.goto("http://127.0.0.1/a'b")`},
		{Step{Action: Back}, `await page.goBack();`, `page.go_back()`},
		{Step{Action: Forward}, `await page.goForward();`, `page.go_forward()`},
		{Step{Action: Reload}, `await page.reload();`, `page.reload()`},
		{Step{Action: Click, Locator: btn}, `await page.getByRole('button', { name: 'Add' }).click();`, `page.get_by_role("button", name="Add").click()`},
		{Step{Action: Click, Locator: btn, Count: 2}, `await page.getByRole('button', { name: 'Add' }).dblclick();`, `page.get_by_role("button", name="Add").dblclick()`},
		{Step{Action: Click, Locator: btn, Button: "right", Count: 3, Force: true},
			`await page.getByRole('button', { name: 'Add' }).click({ button: 'right', clickCount: 3, force: true });`,
			`page.get_by_role("button", name="Add").click(button="right", click_count=3, force=True)`},
		{Step{Action: Fill, Locator: task, Text: Str{Lit: "milk"}}, `await page.getByLabel('Task').fill('milk');`, `page.get_by_label("Task").fill("milk")`},
		{Step{Action: Type, Locator: task, Text: Str{Lit: "milk"}, Enter: true},
			"await page.getByLabel('Task').pressSequentially('milk');\nawait page.getByLabel('Task').press('Enter');",
			"page.get_by_label(\"Task\").press_sequentially(\"milk\")\npage.get_by_label(\"Task\").press(\"Enter\")"},
		{Step{Action: Type, Locator: task, Enter: true}, `await page.getByLabel('Task').press('Enter');`, `page.get_by_label("Task").press("Enter")`},
		{Step{Action: Fill, Locator: task, Text: Str{Env: "BROWSERMCP_SECRET_1"}},
			`await page.getByLabel('Task').fill(process.env.BROWSERMCP_SECRET_1);`, `page.get_by_label("Task").fill(os.environ["BROWSERMCP_SECRET_1"])`},
		{Step{Action: Select, Locator: list, Values: []string{"hi"}}, `await page.locator('#list').selectOption('hi');`, `page.locator("#list").select_option("hi")`},
		{Step{Action: Select, Locator: list, Values: []string{"a", "b"}}, `await page.locator('#list').selectOption(['a', 'b']);`, `page.locator("#list").select_option(["a", "b"])`},
		{Step{Action: Check, Locator: list}, `await page.locator('#list').check();`, `page.locator("#list").check()`},
		{Step{Action: Uncheck, Locator: list}, `await page.locator('#list').uncheck();`, `page.locator("#list").uncheck()`},
		{Step{Action: Press, Key: "Control+A"}, `await page.keyboard.press('Control+A');`, `page.keyboard.press("Control+A")`},
		{Step{Action: Press, Locator: task, Key: "Enter"}, `await page.getByLabel('Task').press('Enter');`, `page.get_by_label("Task").press("Enter")`},
		{Step{Action: Hover, Locator: btn}, `await page.getByRole('button', { name: 'Add' }).hover();`, `page.get_by_role("button", name="Add").hover()`},
		{Step{Action: ScrollTo, Locator: btn}, `await page.getByRole('button', { name: 'Add' }).scrollIntoViewIfNeeded();`, `page.get_by_role("button", name="Add").scroll_into_view_if_needed()`},
		{Step{Action: Wheel, X: 0, Y: 250.5}, `await page.mouse.wheel(0, 250.5);`, `page.mouse.wheel(0, 250.5)`},
		{Step{Action: DragTo, Locator: task, To: list}, `await page.getByLabel('Task').dragTo(page.locator('#list'));`, `page.get_by_label("Task").drag_to(page.locator("#list"))`},
		{Step{Action: Upload, Locator: task, Files: []string{"../a.txt"}},
			`await page.getByLabel('Task').setInputFiles([path.join(path.dirname(test.info().file), '../a.txt')]);`,
			`page.get_by_label("Task").set_input_files([os.path.join(os.path.dirname(__file__), "../a.txt")])`},
		{Step{Action: MouseClick, X: 10, Y: 20, Button: "middle", Count: 2}, `await page.mouse.click(10, 20, { button: 'middle', clickCount: 2 });`, `page.mouse.click(10, 20, button="middle", click_count=2)`},
		{Step{Action: MouseMove, X: 1, Y: 2}, `await page.mouse.move(1, 2);`, `page.mouse.move(1, 2)`},
		{Step{Action: MouseDrag, X: 1, Y: 2, ToX: 3, ToY: 4},
			"await page.mouse.move(1, 2);\nawait page.mouse.down();\nawait page.mouse.move(3, 4);\nawait page.mouse.up();",
			"page.mouse.move(1, 2)\npage.mouse.down()\npage.mouse.move(3, 4)\npage.mouse.up()"},
		{Step{Action: WaitText, Text: Str{Lit: "Done"}}, `await expect(page.getByText('Done').first()).toBeVisible();`, `expect(page.get_by_text("Done").first).to_be_visible()`},
		{Step{Action: WaitGone, Text: Str{Lit: "Busy"}}, `await expect(page.getByText('Busy')).toHaveCount(0);`, `expect(page.get_by_text("Busy")).to_have_count(0)`},
		{Step{Action: WaitFor, Locator: list, State: "hidden"}, `await page.locator('#list').waitFor({ state: 'hidden' });`, `page.locator("#list").wait_for(state="hidden")`},
		{Step{Action: WaitFor, Locator: list}, `await page.locator('#list').waitFor();`, `page.locator("#list").wait_for()`},
		{Step{Action: WaitTime, Timeout: 1500}, `await page.waitForTimeout(1500);`, `page.wait_for_timeout(1500)`},
		{Step{Action: WaitLoad, State: "networkidle"}, `await page.waitForLoadState('networkidle');`, `page.wait_for_load_state("networkidle")`},
		{Step{Action: Comment, Note: "a dialog was accepted here\nnot replayed"}, "// a dialog was accepted here\n// not replayed", "# a dialog was accepted here\n# not replayed"},
		{Step{Action: ExpectShown, Locator: btn}, `await expect(page.getByRole('button', { name: 'Add' })).toBeVisible();`, `expect(page.get_by_role("button", name="Add")).to_be_visible()`},
		{Step{Action: ExpectHide, Locator: btn}, `await expect(page.getByRole('button', { name: 'Add' })).toBeHidden();`, `expect(page.get_by_role("button", name="Add")).to_be_hidden()`},
		{Step{Action: ExpectShown, Locator: &Locator{Kind: ByRole, Role: "button", Name: "Add", Visible: true, First: true}},
			`await expect(page.getByRole('button', { name: 'Add' }).filter({ visible: true }).first()).toBeVisible();`,
			`expect(page.get_by_role("button", name="Add").filter(visible=True).first).to_be_visible()`},
		{Step{Action: ExpectHide, Locator: &Locator{Kind: ByRole, Role: "button", Name: "Add", Visible: true}},
			`await expect(page.getByRole('button', { name: 'Add' }).filter({ visible: true })).toHaveCount(0);`,
			`expect(page.get_by_role("button", name="Add").filter(visible=True)).to_have_count(0)`},
		{Step{Action: Click, Locator: btn, Chooser: 2}, "const fileChooser2 = page.waitForEvent('filechooser');\nawait page.getByRole('button', { name: 'Add' }).click();",
			"with page.expect_file_chooser() as file_chooser_info2:\n    page.get_by_role(\"button\", name=\"Add\").click()\nfile_chooser2 = file_chooser_info2.value"},
		{Step{Action: Upload, Chooser: 2, Files: []string{"a.txt"}}, "await (await fileChooser2).setFiles([path.join(path.dirname(test.info().file), 'a.txt')]);",
			`file_chooser2.set_files([os.path.join(os.path.dirname(__file__), "a.txt")])`},
		{Step{Action: Upload, Files: []string{"a.txt"}}, "// " + uploadNote, "# " + uploadNote},
		{Step{Action: ExpectText, Text: Str{Lit: "1 task"}}, `await expect(page.locator('body')).toContainText('1 task');`, `expect(page.locator("body")).to_contain_text("1 task")`},
		{Step{Action: ExpectText, Locator: list, Regex: &Regex{Pattern: `milk \(hi`, Flags: "i"}},
			`await expect(page.locator('#list')).toContainText(/milk \(hi/i);`, `expect(page.locator("#list")).to_contain_text(re.compile("milk \\(hi", re.IGNORECASE))`},
		{Step{Action: ExpectList, Locator: list, ItemRole: "listitem", Values: []string{"milk", "eggs"}},
			`await expect(page.locator('#list').getByRole('listitem')).toContainText(['milk', 'eggs']);`,
			`expect(page.locator("#list").get_by_role("listitem")).to_contain_text(["milk", "eggs"])`},
		{Step{Action: ExpectValue, Locator: task, Text: Str{Lit: "x"}}, `await expect(page.getByLabel('Task')).toHaveValue('x');`, `expect(page.get_by_label("Task")).to_have_value("x")`},
		{Step{Action: ExpectCheck, Locator: task}, `await expect(page.getByLabel('Task')).toBeChecked();`, `expect(page.get_by_label("Task")).to_be_checked()`},
		{Step{Action: ExpectCheck, Locator: task, Not: true}, `await expect(page.getByLabel('Task')).not.toBeChecked();`, `expect(page.get_by_label("Task")).not_to_be_checked()`},
		{Step{Action: ExpectOwn, Locator: task, Text: Str{Lit: "hello"}}, `await expect(page.getByLabel('Task')).toHaveText('hello');`, `expect(page.get_by_label("Task")).to_have_text("hello")`},
		{Step{Action: ExpectURL, Text: Str{Lit: "http://x/"}}, `await expect(page).toHaveURL('http://x/');`, `expect(page).to_have_url("http://x/")`},
		{Step{Action: ExpectURL, Regex: &Regex{Pattern: `/todo\.html$`}}, `await expect(page).toHaveURL(/\/todo\.html$/);`, `expect(page).to_have_url(re.compile("/todo\\.html$"))`},
		{Step{Action: ExpectTitle, Regex: &Regex{Pattern: `^Todo`, Flags: "ms"}}, `await expect(page).toHaveTitle(/^Todo/ms);`, `expect(page).to_have_title(re.compile("^Todo", re.MULTILINE | re.DOTALL))`},
	}
	for _, c := range cases {
		if got := strings.Join(c.s.Code(TypeScript), "\n"); got != c.ts {
			t.Errorf("%s TypeScript:\n got %s\nwant %s", c.s.Action, got, c.ts)
		}
		if got := strings.Join(c.s.Code(Python), "\n"); got != c.py {
			t.Errorf("%s Python:\n got %s\nwant %s", c.s.Action, got, c.py)
		}
	}
}

func TestParseRegex(t *testing.T) {
	for in, want := range map[string]Regex{
		"abc":         {Pattern: "abc"},
		"/a/b/i":      {Pattern: "a/b", Flags: "i"},
		"/x/ms":       {Pattern: "x", Flags: "ms"},
		"/not/flags/": {Pattern: "not/flags"},
		"/x/g":        {Pattern: "/x/g"}, // g is not a flag of ours: the whole is a pattern
		"/":           {Pattern: "/"},
	} {
		if got := ParseRegex(in); got != want {
			t.Errorf("ParseRegex(%q) = %+v, want %+v", in, got, want)
		}
	}
	// A slash inside a class or escaped stays as it is in the JS literal.
	for re, want := range map[Regex][2]string{
		{Pattern: `(?i)welcome`}:          {`/welcome/i`, `re.compile("(?i)welcome")`},
		{Pattern: `(?is)a.b`, Flags: "i"}: {`/a.b/is`, `re.compile("(?is)a.b", re.IGNORECASE)`},
		{Pattern: `\Ahi\z`}:               {`/(?<![\s\S])hi(?![\s\S])/`, `re.compile("\\Ahi\\Z")`},
		{Pattern: `(?P<n>\d+) \(?P`}:      {`/(?<n>\d+) \(?P/`, `re.compile("(?P<n>\\d+) \\(?P")`},
		{Pattern: `[\A]`}:                 {`/[\A]/`, `re.compile("[\\A]")`},
		// RE2 syntax that JavaScript or Python reads otherwise is
		// written anew from the parsed pattern.
		{Pattern: `[[:digit:]]+ \Qa.b\E`}: {`/[0-9]+ a\.b/u`, `re.compile("[0-9]+ a\\.b")`},
		{Pattern: `\x{43}a(?i)rt`}:        {`/Ca[Rr][Tt]/u`, `re.compile("Ca[Rr][Tt]")`},
		{Pattern: `(?i)\Qa.b\E`}:          {`/a\.b/iu`, `re.compile("a\\.b", re.IGNORECASE)`},
		{Pattern: `(?U)(?m)^a+$`}:         {`/(?<![^\n])a+?(?![^\n])/u`, `re.compile("(?m:^)a+?(?m:$)")`},
	} {
		if got := re.JS(); got != want[0] {
			t.Errorf("%+v in JavaScript = %s, want %s", re, got, want[0])
		}
		if got := re.Py(); got != want[1] {
			t.Errorf("%+v in Python = %s, want %s", re, got, want[1])
		}
	}
	if got := (Regex{Pattern: `[/]a\/b/c`}).JS(); got != `/[/]a\/b\/c/` {
		t.Errorf("JS = %s", got)
	}
}

func TestFile(t *testing.T) {
	steps := []Step{
		{Action: Click, Locator: &Locator{Kind: ByCSS, Value: "#before"}}, // before the first navigation: left out
		{Action: Goto, URL: "http://127.0.0.1:1/todo.html"},
		{Action: Fill, Locator: &Locator{Kind: ByLabel, Value: "Task"}, Text: Str{Env: "BROWSERMCP_SECRET_1"}},
		{Action: Upload, Locator: &Locator{Kind: ByCSS, Value: "#f"}, Files: []string{"a.txt"}},
		{Action: ExpectTitle, Regex: &Regex{Pattern: "Todo"}},
	}
	ts, n, ok := File(TypeScript, "recorded session s1", "Recorded.\nRun: npx playwright test x.spec.ts", steps)
	if !ok || n != 4 {
		t.Fatalf("File = %d steps, %v", n, ok)
	}
	for _, want := range []string{
		"// Recorded.\n// Run: npx playwright test x.spec.ts\n// It reads the secrets it types from the environment: BROWSERMCP_SECRET_1.\n",
		"import { test, expect } from '@playwright/test';\nimport * as path from 'path';\n\ntest('recorded session s1', async ({ page }) => {\n  await page.goto('http://127.0.0.1:1/todo.html');\n",
		"  await expect(page).toHaveTitle(/Todo/);\n});\n",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("TypeScript file lacks %q:\n%s", want, ts)
		}
	}
	if strings.Contains(ts, "#before") {
		t.Errorf("the step before the first navigation was exported:\n%s", ts)
	}
	py, _, _ := File(Python, "recorded session s1", "Recorded.", steps)
	for _, want := range []string{
		"# Recorded.\n",
		"import re\nimport os\n\nfrom playwright.sync_api import Page, expect\n\n\ndef test_recorded_session_s1(page: Page) -> None:\n    page.goto(\"http://127.0.0.1:1/todo.html\")\n",
		"    page.get_by_label(\"Task\").fill(os.environ[\"BROWSERMCP_SECRET_1\"])\n",
		"    expect(page).to_have_title(re.compile(\"Todo\"))\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("Python file lacks %q:\n%s", want, py)
		}
	}
	if _, _, ok := File(TypeScript, "x", "", steps[:1]); ok {
		t.Error("File without a navigation succeeded")
	}
}
