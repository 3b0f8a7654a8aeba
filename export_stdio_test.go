package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestExportedTestReplays is the proof that a session becomes a
// test CI can run: a session recorded through the built binary with
// --caps testing is exported with export_test, and the file runs with
// @playwright/test from npm (pinned to the driver's version, make pwtest)
// on the system Chromium. It passes against the page it was recorded on,
// and fails once the page is broken.
func TestExportedTestReplays(t *testing.T) {
	node, modules := testenv.PlaywrightTest(t)
	chromium, err := testenv.ChromiumPath()
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	page, err := os.ReadFile(filepath.Join("testdata", "site", "todo.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The broken page adds every task at low priority.
	broken := strings.ReplaceAll(string(page), "document.getElementById('prio').value", "'lo'")
	if broken == string(page) {
		t.Fatal("todo.html no longer reads the priority where the broken page changes it")
	}
	var isBroken atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/todo.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if isBroken.Load() {
			w.Write([]byte(broken))
			return
		}
		w.Write(page)
	}))
	defer site.Close()

	out := t.TempDir()
	s := startBinary(t, "--caps", "testing", "--output-dir", out)
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tl := range list.Tools {
		listed[tl.Name] = true
	}
	id := s.ok("create_session", nil)["sessionId"].(string)
	url := site.URL + "/todo.html"
	code := func(tool string, args map[string]any) string {
		t.Helper()
		args["sessionId"] = id
		c, _ := s.ok(tool, args)["code"].(string)
		if c == "" {
			t.Fatalf("%s answered no code", tool)
		}
		return c
	}
	if c := code("navigate", map[string]any{"url": url}); c != "await page.goto('"+url+"');" {
		t.Errorf("navigate code = %q", c)
	}
	code("fill", map[string]any{"selector": "#task", "value": "milk"})
	code("select", map[string]any{"selector": "#prio", "values": []string{"High"}})
	code("check", map[string]any{"selector": "#urgent"})
	code("click", map[string]any{"selector": "#addbtn"})
	code("wait_for", map[string]any{"text": "milk (hi, urgent)"})
	code("type", map[string]any{"selector": "#task", "text": "eggs\n"})
	code("wait_for", map[string]any{"text": "2 tasks"})

	// The assertions, each an expect in the file, and an element by its
	// ref from a snapshot, which the file names by its locator.
	for _, tool := range []string{"verify_element", "generate_locator", "export_test"} {
		if !listed[tool] {
			t.Fatalf("--caps testing does not list %s", tool)
		}
	}
	code("verify_element", map[string]any{"role": "heading", "name": "Todo"})
	code("verify_text", map[string]any{"text": "2 tasks"})
	code("verify_list", map[string]any{"selector": "#list", "items": []string{"milk (hi, urgent)", "eggs (hi, urgent)"}})
	code("verify_value", map[string]any{"selector": "#prio", "value": "High"})
	code("verify_value", map[string]any{"selector": "#urgent", "value": "checked"})
	code("verify_url", map[string]any{"regex": `/todo\.html$`})
	code("verify_title", map[string]any{"title": "Todo (2)"})
	snap, _ := s.ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	m := regexp.MustCompile(`checkbox "Urgent"[^\n]*\[ref=(\w+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for the Urgent checkbox in:\n%s", snap)
	}
	if c := code("uncheck", map[string]any{"ref": m[1]}); strings.HasPrefix(c, "//") {
		t.Errorf("uncheck by ref has no locator: %s", c)
	}
	code("check", map[string]any{"ref": m[1]})

	exp := s.ok("export_test", map[string]any{"sessionId": id})
	path, _ := exp["path"].(string)
	if !strings.HasPrefix(path, out) && !strings.HasPrefix(path, mustEval(t, out)) {
		t.Fatalf("exported to %s, outside the output directory %s", path, out)
	}
	file := mustReplay(t, node, modules, chromium, path)
	if n, _ := exp["steps"].(float64); n < 17 || strings.Contains(string(file), "not replayed") {
		t.Fatalf("export_test = %v:\n%s", exp, file)
	}
	isBroken.Store(true)
	log, err := runPlaywrightTestToFail(t, node, modules, chromium, path)
	if err == nil {
		t.Fatalf("the exported test passes against the broken page:\n%s\n%s", file, log)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(log, "1 failed") || !strings.Contains(log, "milk (hi, urgent)") {
		t.Fatalf("against the broken page: %v; want one test failing on its check of milk (hi, urgent):\n%s", err, log)
	}
	t.Logf("the exported test:\n%s\nits run against the broken page:\n%s", file, log)
}

// mustReplay reads the exported test at path and runs it, which must pass
// against the page it was recorded on; it returns the file.
func mustReplay(t *testing.T, node, modules, chromium, path string) []byte {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if log, err := runPlaywrightTest(t, node, modules, chromium, path); err != nil {
		t.Fatalf("the exported test fails against the page it was recorded on: %v\n%s\n%s", err, file, log)
	}
	return file
}

// runPlaywrightTest runs one test file with @playwright/test's runner on
// chromium, from a config of its own: the exported file stays as a user
// would run it. Its expect timeout is 15 s, for a loaded machine.
func runPlaywrightTest(t *testing.T, node, modules, chromium, file string) (string, error) {
	t.Helper()
	return playwrightTestRun(t, node, modules, chromium, file, 15000)
}

// runPlaywrightTestToFail is runPlaywrightTest for a run that must fail on
// an expect, which it waits out: with Playwright's default expect timeout
// (5 s), not the 15 s a passing run gets. The steps before the failing
// expect are actions, whose timeout is unchanged, or expects that hold at
// once on the loaded page (a title).
func runPlaywrightTestToFail(t *testing.T, node, modules, chromium, file string) (string, error) {
	t.Helper()
	return playwrightTestRun(t, node, modules, chromium, file, 5000)
}

func playwrightTestRun(t *testing.T, node, modules, chromium, file string, expectMs int) (string, error) {
	t.Helper()
	dir := t.TempDir()
	args := "[]"
	if os.Getuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		args = "['--no-sandbox']"
	}
	cfg := "module.exports = {\n" +
		"  testDir: " + strconv.Quote(filepath.Dir(file)) + ",\n" +
		"  outputDir: " + strconv.Quote(filepath.Join(dir, "results")) + ",\n" +
		"  workers: 1, retries: 0, reporter: 'line',\n" +
		"  timeout: 120000, expect: { timeout: " + strconv.Itoa(expectMs) + " },\n" +
		"  use: { headless: true, actionTimeout: 30000, navigationTimeout: 60000,\n" +
		"    launchOptions: { executablePath: " + strconv.Quote(chromium) + ", args: " + args + " } },\n" +
		"};\n"
	config := filepath.Join(dir, "playwright.config.js")
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(modules, "@playwright", "test", "cli.js"), "test", "--config", config, filepath.Base(file))
	cmd.Dir = dir
	// The exported file imports @playwright/test from where it lies, the
	// output directory: NODE_PATH points it at the pinned one.
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "CI=1", "FORCE_COLOR=0")
	cmd.WaitDelay = 10 * time.Second
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the Playwright test run did not end in time:\n%s", b)
	}
	return string(b), err
}

func mustEval(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestExportedFileChooserReplays records uploads through native file
// choosers (a button whose script clicks a hidden input, and a label) over
// the built binary with --caps testing, and runs the exported test with
// @playwright/test: each action that opened a chooser waits for it
// (page.waitForEvent('filechooser')), and upload_file without a target
// fills that chooser, as page.setInputFiles, which takes a selector,
// cannot; a chooser cancelled with files: [] is cancelled in the test
// too. The page reads the files back into its title (or says its input
// heard cancel), which the test asserts.
func TestExportedFileChooserReplays(t *testing.T) {
	node, modules := testenv.PlaywrightTest(t)
	chromium, err := testenv.ChromiumPath()
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	for name, body := range map[string]string{"a.txt": "alpha", "b.txt": "beta"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startBinary(t, "--caps", "testing", "--output-dir", out)
	if _, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	id := s.ok("create_session", nil)["sessionId"].(string)
	code := func(tool string, args map[string]any) string {
		t.Helper()
		args["sessionId"] = id
		c, _ := s.ok(tool, args)["code"].(string)
		return c
	}
	code("navigate", map[string]any{"url": site.URL + "/chooser.html"})
	if c := code("click", map[string]any{"selector": "#pick"}); !strings.Contains(c, "const fileChooser1 = page.waitForEvent('filechooser');\n") {
		t.Errorf("the click that opened a chooser: code %q does not wait for it", c)
	}
	if c, want := code("upload_file", map[string]any{"files": []any{"a.txt", "b.txt"}}), "await (await fileChooser1).setFiles(["; !strings.HasPrefix(c, want) {
		t.Errorf("upload_file without a target: code %q, want %s…", c, want)
	}
	code("verify_title", map[string]any{"title": "many a.txt=alpha,b.txt=beta"})
	code("click", map[string]any{"selector": "#lbl"})
	if c := code("upload_file", map[string]any{"files": []any{"b.txt"}}); !strings.HasPrefix(c, "await (await fileChooser2).setFiles([") {
		t.Errorf("the second chooser's upload: code %q", c)
	}
	code("verify_title", map[string]any{"title": "one b.txt=beta"})
	// A chooser cancelled (files: []) is cancelled in the test too: the
	// input hears cancel, as from a user who closed the chooser.
	code("click", map[string]any{"selector": "#lbl"})
	if c, want := code("upload_file", map[string]any{"files": []any{}}), "await (await fileChooser3).element().dispatchEvent('cancel');"; c != want {
		t.Errorf("upload_file with no files: code %q, want %s", c, want)
	}
	code("verify_title", map[string]any{"title": "one cancelled"})

	path, _ := s.ok("export_test", map[string]any{"sessionId": id})["path"].(string)
	file := mustReplay(t, node, modules, chromium, path)
	if strings.Contains(string(file), "not replayed") {
		t.Fatalf("the exported test leaves a step out:\n%s", file)
	}
	py, _ := s.ok("export_test", map[string]any{"sessionId": id, "language": "python"})["code"].(string)
	if !strings.Contains(py, "with page.expect_file_chooser() as file_chooser_info1:\n        page.") ||
		!strings.Contains(py, "    file_chooser1 = file_chooser_info1.value\n") || !strings.Contains(py, "file_chooser2.set_files([") ||
		!strings.Contains(py, `file_chooser3.element.dispatch_event("cancel")`) {
		t.Errorf("the Python export does not wait for its choosers:\n%s", py)
	}
}

// TestExportedRoleAssertionOfSeveral records verify_element by role and
// name on a page with two product cards, each with an "Add to cart"
// button, and a "Pay now" button in an iframe, over the built binary with
// --caps testing; the one in the iframe is found through its
// frameLocator. verify_element holds
// when any of them is visible; the exported expect keeps the visible ones
// and takes the first, as getByRole alone matches both and Playwright's
// strict mode fails it. The test passes on the page, and fails once the
// buttons are gone.
func TestExportedRoleAssertionOfSeveral(t *testing.T) {
	node, modules := testenv.PlaywrightTest(t)
	chromium, err := testenv.ChromiumPath()
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	const page = `<!doctype html><title>Shop</title><h1>Shop</h1>
<div class="card"><h2>Red shirt</h2><button>Add to cart</button></div>
<div class="card"><h2>Blue shirt</h2><button>Add to cart</button></div>
<button>Checkout</button>
<iframe id="pay" srcdoc="<button>Pay now</button>"></iframe>`
	var broken atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if broken.Load() {
			w.Write([]byte(strings.ReplaceAll(page, "Add to cart", "Sold out")))
			return
		}
		w.Write([]byte(page))
	}))
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--caps", "testing", "--output-dir", out)
	if _, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/"})
	c, _ := s.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Add to cart"})["code"].(string)
	if want := "await expect(page.getByRole('button', { name: 'Add to cart', exact: true }).filter({ visible: true }).first()).toBeVisible();"; c != want {
		t.Errorf("verify_element of two buttons: code\n%s\nwant\n%s", c, want)
	}
	c, _ = s.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Checkout"})["code"].(string)
	if want := "await expect(page.getByRole('button', { name: 'Checkout', exact: true })).toBeVisible();"; c != want {
		t.Errorf("verify_element of one button: code\n%s\nwant\n%s", c, want)
	}
	// A button in an iframe, which the outline shows and getByRole
	// alone does not enter.
	c, _ = s.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Pay now"})["code"].(string)
	if want := "await expect(page.frameLocator('#pay').getByRole('button', { name: 'Pay now', exact: true })).toBeVisible();"; c != want {
		t.Errorf("verify_element of a button in an iframe: code\n%s\nwant\n%s", c, want)
	}
	path, _ := s.ok("export_test", map[string]any{"sessionId": id})["path"].(string)
	mustReplay(t, node, modules, chromium, path)
	broken.Store(true)
	if log, err := runPlaywrightTestToFail(t, node, modules, chromium, path); err == nil || !strings.Contains(log, "Add to cart") {
		t.Fatalf("the exported test against the page without the buttons: %v, want a failure on Add to cart:\n%s", err, log)
	}
}

// TestExportedRE2Regex records verify_title and verify_text with regexes
// written as RE2 writes them, as their schemas invite: a leading (?i), a
// named group (?P<n>…), \A and \z. The exported test must load and pass in
// @playwright/test, whose JavaScript refuses (?i) and (?P<, and fail on a
// page where they do not hold.
func TestExportedRE2Regex(t *testing.T) {
	node, modules := testenv.PlaywrightTest(t)
	chromium, err := testenv.ChromiumPath()
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	var broken atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		n := "3"
		if broken.Load() {
			n = "no"
		}
		w.Write([]byte("<!doctype html><title>Shop Cart</title><p id=n>" + n + " items</p>"))
	}))
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--caps", "testing", "--output-dir", out)
	if _, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/"})
	s.ok("verify_title", map[string]any{"sessionId": id, "regex": `(?i)\ASHOP cart\z`})
	s.ok("verify_text", map[string]any{"sessionId": id, "regex": `(?P<count>\d+) items`})
	s.ok("verify_text", map[string]any{"sessionId": id, "selector": "#n", "regex": `(?i)^\d+ ITEMS$`})
	// RE2 syntax that JavaScript reads otherwise (a POSIX class, \Q...\E,
	// \p{Lu}, \x{43}, a flag group after the start): the exported test
	// must mean the same.
	s.ok("verify_text", map[string]any{"sessionId": id, "selector": "#n", "regex": `^[[:digit:]]+ \Qitems\E$`})
	s.ok("verify_title", map[string]any{"sessionId": id, "regex": `^\p{Lu}\pL+ \x{43}(?i)ART$`})
	path, _ := s.ok("export_test", map[string]any{"sessionId": id})["path"].(string)
	mustReplay(t, node, modules, chromium, path)
	broken.Store(true)
	if log, err := runPlaywrightTestToFail(t, node, modules, chromium, path); err == nil || !strings.Contains(log, "toContainText") {
		t.Fatalf("the exported test against the page with no count: %v, want a failure of toContainText:\n%s", err, log)
	}
}

// TestExportedDialogsReplay records a confirm accepted, a prompt answered
// and a confirm dismissed over the built binary with --caps testing, each
// followed by verify_title of what the page did with the answer. The
// exported test answers each dialog as the session did, with a
// page.once('dialog') handler before the action that opens it (Playwright
// dismisses a dialog no handler takes), and passes.
func TestExportedDialogsReplay(t *testing.T) {
	node, modules := testenv.PlaywrightTest(t)
	chromium, err := testenv.ChromiumPath()
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--caps", "testing", "--output-dir", out)
	if _, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	id := s.ok("create_session", nil)["sessionId"].(string)
	call := func(tool string, args map[string]any) {
		args["sessionId"] = id
		s.ok(tool, args)
	}
	call("navigate", map[string]any{"url": site.URL + "/dialogs.html"})
	call("click", map[string]any{"selector": "#confirm"})
	call("handle_dialog", map[string]any{"accept": true})
	call("verify_title", map[string]any{"title": "confirmed"})
	call("click", map[string]any{"selector": "#prompt"})
	call("handle_dialog", map[string]any{"accept": true, "promptText": "Ada 'the' \\ first"})
	call("verify_title", map[string]any{"title": "name=Ada 'the' \\ first"})
	call("click", map[string]any{"selector": "#confirm"})
	call("handle_dialog", map[string]any{"accept": false})
	call("verify_title", map[string]any{"title": "cancelled"})
	exp := s.ok("export_test", map[string]any{"sessionId": id})
	path, _ := exp["path"].(string)
	mustReplay(t, node, modules, chromium, path)
	py, _ := s.ok("export_test", map[string]any{"sessionId": id, "language": "python"})["code"].(string)
	if !strings.Contains(py, `    page.once("dialog", lambda dialog: dialog.accept("Ada 'the' \\ first"))`+"\n    page.") {
		t.Errorf("the Python export does not answer the prompt before the click:\n%s", py)
	}
}
