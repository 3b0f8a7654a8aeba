package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/pwenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file check the flags playwright-mcp users reach for
// (issue #16) through the built binary, on every engine that honours them.

// flagEngines are the engines a flag test runs on, with the flags that
// choose each.
var flagEngines = []struct {
	name, browser string
	args          []string
}{
	{"cdp", pw.Chromium, nil},
	{"pw-chromium", pw.Chromium, []string{"--engine", "playwright"}},
	{"pw-firefox", pw.Firefox, []string{"--browser", "firefox"}},
}

// startEngine starts the binary on the named engine with args.
func startEngine(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	for _, e := range flagEngines {
		if e.name != name {
			continue
		}
		if name != "cdp" {
			// The binary finds the driver through driverEnv
			// (startBinaryIn): t.Setenv panics in eachEngine's parallel
			// subtests.
			pwenv.Playwright(t, e.browser)
		}
		return startBinary(t, append(append([]string{}, e.args...), args...)...)
	}
	t.Fatalf("no engine %q", name)
	return nil
}

// eachEngine runs f once per engine, as parallel subtests: each starts
// servers and browsers of its own, and most of their time is the browsers'
// start, which overlaps well. The subtests run after the test's function
// has returned, so what they use is closed with t.Cleanup, not defer.
func eachEngine(t *testing.T, f func(t *testing.T, engine string)) {
	for _, e := range flagEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			f(t, e.name)
		})
	}
}

// titleOf is the title of the session's page.
func titleOf(s *proc, id string) string {
	for _, v := range s.ok("list_sessions", nil)["sessions"].([]any) {
		if m := v.(map[string]any); m["sessionId"] == id {
			t, _ := m["title"].(string)
			return t
		}
	}
	return ""
}

func TestIgnoreHTTPSErrorsFlag(t *testing.T) {
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>self-signed</title>")
	}))
	t.Cleanup(tls.Close)
	eachEngine(t, func(t *testing.T, eng string) {
		if eng == "pw-firefox" {
			refused(t, []string{"--browser", "firefox", "--ignore-https-errors"}, "--ignore-https-errors cannot be honoured with --browser firefox")
			return
		}
		s := startEngine(t, eng)
		id := s.ok("create_session", nil)["sessionId"].(string)
		if out, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": tls.URL}); !isErr || out["errorCode"] != "NAVIGATION_FAILED" {
			t.Fatalf("without --ignore-https-errors, a self-signed page = %v, want NAVIGATION_FAILED", out)
		}
		s = startEngine(t, eng, "--ignore-https-errors")
		id = s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": tls.URL})
		if got := titleOf(s, id); got != "self-signed" {
			t.Fatalf("with --ignore-https-errors the page's title is %q", got)
		}
	})
}

// refused runs the binary with args and wants it to exit with status 2
// before serving, with want on stderr.
func refused(t *testing.T, args []string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), args...)
	cmd.Env = driverEnv()
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("%v: exit = %v, want status 2; stderr:\n%s", args, err, stderr.String())
	}
	for _, w := range want {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("%v: stderr lacks %q:\n%s", args, w, stderr.String())
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("%v wrote to stdout: %q", args, stdout.String())
	}
}

// eval runs script in the session's page and returns its value.
func eval(s *proc, id, script string) any {
	return s.ok("evaluate", map[string]any{"sessionId": id, "script": script})["result"]
}

// pageTraits are what a page sees of the device it runs on. A mobile
// browser lays out a page without a meta viewport wider than the screen.
const pageTraits = `() => ({ua: navigator.userAgent, width: screen.width, layout: innerWidth, dpr: devicePixelRatio, touch: navigator.maxTouchPoints > 0,
	mobile: matchMedia("(pointer: coarse)").matches})`

// TestDeviceFlags checks --device, --user-agent and --mobile. (Its name is
// short on purpose: the server's TMPDIR is named after the test, and
// Chromium under Playwright fails to start when its profile path, under
// that TMPDIR, outgrows a Unix socket path.)
func TestDeviceFlags(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	traits := func(s *proc, create map[string]any) map[string]any {
		id := s.ok("create_session", create)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
		return eval(s, id, pageTraits).(map[string]any)
	}
	eachEngine(t, func(t *testing.T, eng string) {
		if eng == "pw-firefox" {
			for _, f := range [][]string{{"--device", "Pixel 7"}, {"--mobile"}, {"--user-agent", "bmcp/2"}} {
				refused(t, append([]string{"--browser", "firefox"}, f...), f[0]+" cannot be honoured with --browser firefox")
			}
			return
		}
		s := startEngine(t, eng, "--device", "Pixel 7")
		got := traits(s, nil)
		if got["width"] != 412.0 || got["dpr"] != 2.625 || got["touch"] != true || got["layout"].(float64) <= 412 || !strings.Contains(got["ua"].(string), "Pixel 7") {
			t.Errorf("--device \"Pixel 7\": the page sees %v", got)
		}
		if got := traits(s, map[string]any{"userAgent": "own/1"}); got["ua"] != "own/1" || got["width"] != 412.0 {
			t.Errorf("create_session's userAgent under --device: the page sees %v", got)
		}

		s = startEngine(t, eng, "--device", "Pixel 7", "--user-agent", "bmcp/2", "--viewport-size", "500x700")
		if got := traits(s, nil); got["ua"] != "bmcp/2" || got["width"] != 500.0 || got["touch"] != true {
			t.Errorf("--user-agent and --viewport-size over --device: the page sees %v", got)
		}

		s = startEngine(t, eng, "--mobile", "--viewport-size", "600x800")
		if got := traits(s, nil); got["touch"] != true || got["width"] != 600.0 || got["layout"].(float64) <= 600 {
			t.Errorf("--mobile: the page sees %v", got)
		}

		// A name playwright-mcp users pass, with Playwright's descriptor:
		// 390x664 at 3x, and its user agent, on a page laid out at the
		// device's width.
		s = startEngine(t, eng, "--device", "iPhone 13")
		id := s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/device.html"})
		got = eval(s, id, `() => ({inner: innerWidth, innerH: innerHeight, ua: navigator.userAgent, dpr: devicePixelRatio, touch: navigator.maxTouchPoints > 0})`).(map[string]any)
		if got["inner"] != 390.0 || got["innerH"] != 664.0 || got["dpr"] != 3.0 || got["touch"] != true ||
			!strings.Contains(got["ua"].(string), "iPhone OS 15_0") {
			t.Errorf("--device \"iPhone 13\": the page sees %v", got)
		}
	})
	refused(t, []string{"--device", "Nokia 3310"}, `invalid value "Nokia 3310" for flag -device`, `closest: "Nokia N9"`)
	refused(t, []string{"--device", "iphone 13"}, `closest: "iPhone 13"`)
}

func TestTimeoutFlags(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	waited := func(out map[string]any) any {
		d, _ := out["details"].(map[string]any)
		return d["timeout"]
	}
	eachEngine(t, func(t *testing.T, eng string) {
		s := startEngine(t, eng, "--timeout-action", "300", "--timeout-navigation", "700")
		id := s.ok("create_session", nil)["sessionId"].(string)
		out, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/slow?ms=20000"})
		if !isErr || out["errorCode"] != "NAVIGATION_FAILED" || waited(out) != 700.0 {
			t.Errorf("navigate to a page slower than --timeout-navigation 700 = %v", out)
		}
		// The page to act on loads with a timeout of its own: 700 ms is
		// too little for a loaded machine.
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html", "timeout": 60000})
		for _, tool := range []string{"click", "get_text", "hover"} {
			out, isErr = s.call(tool, map[string]any{"sessionId": id, "selector": "#none"})
			if !isErr || out["errorCode"] != "ELEMENT_NOT_FOUND" || waited(out) != 300.0 {
				t.Errorf("%s on a missing element under --timeout-action 300 = %v", tool, out)
			}
		}
		// A call's own timeout still comes first.
		out, _ = s.call("click", map[string]any{"sessionId": id, "selector": "#none", "timeout": 200})
		if waited(out) != 200.0 {
			t.Errorf("click with timeout 200 under --timeout-action 300 = %v", out)
		}
	})
	refused(t, []string{"--timeout-action", "0"}, "flag -timeout-action")
}

// proxyServer answers every request itself, naming itself and the host
// asked for, and records the hosts.
func proxyServer(t *testing.T, name string) (*httptest.Server, *sync.Map) {
	seen := &sync.Map{}
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Host, true)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>%s %s</title>", name, r.Host)
	}))
	t.Cleanup(p.Close)
	return p, seen
}

func TestProxyFlags(t *testing.T) {
	proxy, seen := proxyServer(t, "default")
	own, _ := proxyServer(t, "own")
	eachEngine(t, func(t *testing.T, eng string) {
		args := []string{"--proxy-server", proxy.URL, "--proxy-bypass", "bypassed.invalid, other.invalid"}
		if eng == "pw-firefox" {
			refused(t, append([]string{"--browser", "firefox"}, args...), "--proxy-server cannot be honoured with --browser firefox")
			return
		}
		variants := [][]string{args}
		if eng == "cdp" {
			// Under a domain policy the proxy settings pass the
			// policy's WebSocket relay.
			variants = append(variants, append(args, "--blocked-domains", "blocked.invalid"))
		}
		for _, a := range variants {
			s := startEngine(t, eng, a...)
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": "http://proxied.invalid/"})
			if got := titleOf(s, id); got != "default proxied.invalid" {
				t.Errorf("%v: a page through --proxy-server has the title %q", a, got)
			}
			if out, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": "http://bypassed.invalid/"}); !isErr {
				t.Errorf("%v: a --proxy-bypass host that does not exist loaded: %v", a, out)
			}
			if _, ok := seen.Load("bypassed.invalid"); ok {
				t.Errorf("%v: the proxy was asked for a --proxy-bypass host", a)
			}
			mine := s.ok("create_session", map[string]any{"proxy": own.URL})["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": mine, "url": "http://bypassed.invalid/"})
			if got := titleOf(s, mine); got != "own bypassed.invalid" {
				t.Errorf("%v: create_session's proxy: the title is %q", a, got)
			}
		}
	})
	refused(t, []string{"--proxy-bypass", "a.invalid"}, "needs --proxy-server")
	refused(t, []string{"--proxy-server", "not a proxy"}, "flag -proxy-server")
}

func TestInitScriptFlag(t *testing.T) {
	// The page's first script shows what ran before it.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<script>document.title = String(window.initRan)</script><a id="pop" href="/popup" target="_blank">pop</a>`)
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	first, second := dir+"/first.js", dir+"/second.js"
	os.WriteFile(first, []byte(`window.initRan = "first";`), 0o600)
	os.WriteFile(second, []byte(`window.initRan += "+second";`), 0o600)
	eachEngine(t, func(t *testing.T, eng string) {
		s := startEngine(t, eng, "--init-script", first, "--init-script", second)
		for range 2 { // every session
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL})
			if got := titleOf(s, id); got != "first+second" {
				t.Fatalf("the page's first script saw initRan = %q, want first+second", got)
			}
			// Pages the site opens run them too: on Playwright from their
			// first document; on cdp, which cannot catch a popup before it
			// loads (engine/cdp/popups.go), from their next one.
			s.ok("click", map[string]any{"sessionId": id, "selector": "#pop"})
			var tabs []any
			testenv.Eventually(t, "the popup to load", func() (bool, error) {
				tabs = s.ok("tabs", map[string]any{"sessionId": id, "action": "list"})["tabs"].([]any)
				title := tabs[len(tabs)-1].(map[string]any)["title"]
				return len(tabs) == 2 && title != "" && (eng == "cdp" || title == "first+second"),
					fmt.Errorf("the tabs are %v; the popup's first script must see initRan = first+second", tabs)
			})
			s.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": len(tabs) - 1})
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/again"})
			if got := titleOf(s, id); got != "first+second" {
				t.Errorf("the popup's next document saw initRan = %q, want first+second", got)
			}
		}
	})
	refused(t, []string{"--init-script", dir + "/missing.js"}, "flag -init-script", "missing.js")
}

func TestGrantPermissionsFlag(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	const states = `() => Promise.all(["geolocation", "notifications"].map(n => navigator.permissions.query({name: n}).then(r => r.state)))`
	eachEngine(t, func(t *testing.T, eng string) {
		if eng == "pw-firefox" {
			refused(t, []string{"--browser", "firefox", "--grant-permissions", "geolocation"}, "--grant-permissions cannot be honoured with --browser firefox")
			return
		}
		if eng == "cdp" {
			s := startEngine(t, eng)
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
			if got := fmt.Sprint(eval(s, id, states)); got != "[prompt prompt]" {
				t.Errorf("without --grant-permissions the page's permissions are %s", got)
			}
		}
		s := startEngine(t, eng, "--grant-permissions", "geolocation,notifications")
		id := s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
		if got := fmt.Sprint(eval(s, id, states)); got != "[granted granted]" {
			t.Errorf("with --grant-permissions geolocation,notifications the page's permissions are %s", got)
		}
	})
	refused(t, []string{"--grant-permissions", "geolocation,telepathy"}, "flag -grant-permissions", `unknown permission "telepathy"`)
}

func TestStorageStateFlag(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	dir := t.TempDir()
	state := dir + "/state.json"
	os.WriteFile(state, []byte(fmt.Sprintf(`{"cookies": [{"name": "saved", "value": "cookie", "url": %q}],
		"origins": [{"origin": %q, "localStorage": [{"name": "saved", "value": "item"}]}]}`, site.URL, site.URL)), 0o600)
	const read = `() => document.cookie + " " + localStorage.getItem("saved")`
	eachEngine(t, func(t *testing.T, eng string) {
		s := startEngine(t, eng, "--storage-state", state)
		id := s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/storage.html"})
		if got := eval(s, id, read); got != "saved=cookie item" {
			t.Errorf("a session under --storage-state sees %q", got)
		}
		// A session's own storageState replaces the file's.
		own := s.ok("create_session", map[string]any{"storageState": map[string]any{"cookies": []any{}, "origins": []any{}}})["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": own, "url": site.URL + "/storage.html"})
		if got := eval(s, own, read); got != " null" {
			t.Errorf("a session with its own storageState sees %q", got)
		}
	})
	bad := dir + "/bad.json"
	os.WriteFile(bad, []byte(`{"cookies": "none"}`), 0o600)
	refused(t, []string{"--storage-state", bad}, "flag -storage-state", "not a save_state file")
	refused(t, []string{"--storage-state", dir + "/missing.json"}, "flag -storage-state", "missing.json")
}

func TestImageResponsesFlag(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	out := t.TempDir()
	s := startBinary(t, "--image-responses", "omit", "--output-dir", out)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"screenshot", map[string]any{"sessionId": id}}, {"screenshot_element", map[string]any{"sessionId": id, "selector": "h1", "type": "jpeg"}}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: c.tool, Arguments: c.args}})
		cancel()
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", c.tool, err, res)
		}
		for _, part := range res.Content {
			if _, ok := part.(mcp.ImageContent); ok {
				t.Errorf("%s under --image-responses omit returned image content", c.tool)
			}
		}
		note, _ := res.StructuredContent.(map[string]any)["note"].(string)
		path, found := strings.CutPrefix(note, "image omitted (--image-responses omit); saved to ")
		if !found || !strings.HasPrefix(path, filepath.Join(out, "screenshots")+"/") {
			t.Fatalf("%s: note %q names no file under --output-dir/screenshots", c.tool, note)
		}
		img, err := os.ReadFile(path)
		if err != nil || len(img) != int(res.StructuredContent.(map[string]any)["bytes"].(float64)) {
			t.Fatalf("%s: the saved file: %v, %d bytes, result %v", c.tool, err, len(img), res.StructuredContent)
		}
		if png, jpeg := bytes.HasPrefix(img, []byte("\x89PNG")), bytes.HasPrefix(img, []byte{0xff, 0xd8}); !png && !jpeg {
			t.Errorf("%s: the saved file is not an image", c.tool)
		}
	}
	refused(t, []string{"--image-responses", "never"}, "flag -image-responses", "want allow, omit")
}

// TestOutputSchemasFlag: tools/list lists output schemas only with
// --output-schemas (or its variable), and a success carries its
// structuredContent either way.
func TestOutputSchemasFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{{nil, "", false}, {[]string{"--output-schemas"}, "", true}, {nil, "true", true}} {
		t.Setenv("BROWSERMCP_OUTPUT_SCHEMAS", c.env)
		s := startBinary(t, c.args...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range list.Tools {
			if has := tl.RawOutputSchema != nil || tl.OutputSchema.Type != ""; has != c.want {
				t.Errorf("%v %q: %s lists an output schema: %v", c.args, c.env, tl.Name, has)
			}
		}
		if id, _ := s.ok("create_session", nil)["sessionId"].(string); id == "" {
			t.Errorf("%v %q: create_session answered no sessionId in structuredContent", c.args, c.env)
		}
	}
}

func TestBlockServiceWorkersFlag(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sw.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `self.addEventListener("fetch", () => {});`)
			return
		}
		fmt.Fprint(w, `<title>sw</title>`)
	}))
	t.Cleanup(site.Close)
	const register = `() => navigator.serviceWorker.register("/sw.js").then(r => r ? "registered" : "none", e => "refused")
		.then(how => navigator.serviceWorker.getRegistrations().then(rs => how + " " + rs.length))`
	eachEngine(t, func(t *testing.T, eng string) {
		// Blocked, register rejects (cdp) or resolves to nothing
		// (Playwright's block), and no worker is registered.
		for _, c := range []struct {
			args []string
			want []string
		}{{nil, []string{"registered 1"}}, {[]string{"--block-service-workers"}, []string{"refused 0", "none 0"}}} {
			s := startEngine(t, eng, c.args...)
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL})
			if got, _ := eval(s, id, register).(string); !slices.Contains(c.want, got) {
				t.Errorf("%v: registering a service worker: %q, want one of %q", c.args, got, c.want)
			}
		}
	})
}

func TestTestIDAttributeFlag(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>ids</title><button data-testid="go" onclick="document.title = 'testid'">A</button>
<button data-qa="go" onclick="document.title = 'qa'">B</button><div id="host"></div>
<script>document.getElementById("host").attachShadow({mode: "open"}).innerHTML = '<input data-qa="deep &quot;one&quot;">'</script>`)
	}))
	t.Cleanup(site.Close)
	eachEngine(t, func(t *testing.T, eng string) {
		for _, c := range []struct {
			args []string
			want string
		}{{nil, "testid"}, {[]string{"--test-id-attribute", "data-qa"}, "qa"}} {
			s := startEngine(t, eng, c.args...)
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL})
			s.ok("click", map[string]any{"sessionId": id, "selector": "testid=go"})
			if got := titleOf(s, id); got != c.want {
				t.Errorf("%v: click on testid=go: the title is %q, want %q", c.args, got, c.want)
			}
			if c.args == nil {
				continue
			}
			// Like CSS, testid= pierces open shadow roots; quotes in the
			// value are the value's.
			s.ok("type", map[string]any{"sessionId": id, "selector": `testid=deep "one"`, "text": "in the shadow"})
			if got := eval(s, id, `() => document.getElementById("host").shadowRoot.querySelector("input").value`); got != "in the shadow" {
				t.Errorf("type into testid=deep \"one\" in a shadow root: the input holds %q", got)
			}
		}
	})
	refused(t, []string{"--test-id-attribute", "data qa"}, "flag -test-id-attribute")
}

func TestIdleTimeoutFlag(t *testing.T) {
	site := testsite.Start()
	t.Cleanup(site.Close)
	eachEngine(t, func(t *testing.T, eng string) {
		s := startEngine(t, eng, "--idle-timeout", "300")
		running := func(want bool, after string) {
			t.Helper()
			testenv.Eventually(t, fmt.Sprintf("the browser to be running=%v %s", want, after), func() (bool, error) {
				pids := browserPIDs(s.tmp)
				if eng != "cdp" {
					// Playwright's browsers keep their profile elsewhere:
					// count the browser processes the server started.
					pids = childBrowsers(s.cmd.Process.Pid)
				}
				return (len(pids) > 0) == want, fmt.Errorf("browser processes: %v", pids)
			})
		}
		// The browser starts with the server, and stops without a session.
		running(false, "with no session for --idle-timeout")
		for range 2 {
			id := s.ok("create_session", nil)["sessionId"].(string)
			s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
			running(true, "while a session exists")
			s.ok("close_session", map[string]any{"sessionId": id})
			running(false, "after the last session closed")
		}
	})
	refused(t, []string{"--idle-timeout", "-1"}, "flag -idle-timeout")
}

// childBrowsers lists the Chromium and Firefox processes descended from
// pid.
func childBrowsers(pid int) []int {
	var out []int
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	for p := range parent {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if !bytes.Contains(cmd, []byte("chrom")) && !bytes.Contains(cmd, []byte("firefox")) {
			continue
		}
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func TestHelpIsGNUStyleWithDefaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, buildBinary(t), "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	help := string(out)
	lines := strings.Split(help, "\n")
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "-") && !strings.HasPrefix(strings.TrimSpace(l), "--") {
			t.Errorf("a flag with one dash: %q", l)
		}
	}
	for _, want := range []string{
		"--session-timeout, --sessionTimeout ms", "--max-sessions, --maxSessions",
		"--ignore-https-errors\n", "--user-agent agent", "--device device", "--mobile\n", "--timeout-action ms", "--timeout-navigation ms",
		"--proxy-server URL", "--proxy-bypass hosts", "--init-script file", "--grant-permissions permissions", "--storage-state file",
		"--image-responses value", "--block-service-workers\n", "--test-id-attribute attribute", "--idle-timeout ms",
		`(default "data-testid";`, "(default 5000;", "(default 30000;", "(default 0;", `(default "allow";`, "HTTP bearer key of at least 8 characters",
	} {
		if n := strings.Count(help, want); n != 1 {
			t.Errorf("--help has %q %d times, want once", want, n)
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "    \t") && strings.Contains(l, "env BROWSERMCP_") && !strings.Contains(l, "(default ") {
			t.Errorf("a setting without its default: %q", l)
		}
	}
	if n := strings.Count(help, "--sessionTimeout"); n != 1 {
		t.Errorf("the sessionTimeout alias is listed %d times, want once, beside --session-timeout", n)
	}
}

// TestRefusalBlamesTheFlagsGiven: a setting left at its default that
// fails because of flags the user gave (--engine's check refuses --device
// with --browser firefox) says what fails, not `invalid value "" for
// default`, a value nobody gave.
func TestRefusalBlamesTheFlagsGiven(t *testing.T) {
	args := []string{"--browser", "firefox", "--device", "iPhone 13"}
	refused(t, args, "browsermcp: --device cannot be honoured with --browser firefox")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), args...)
	cmd.Env = driverEnv()
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), "for default") {
		t.Errorf("%v: %s", args, out)
	}
}
