package tools_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// press clicks selector on the session's current tab and waits for the
// page to show text.
func (e *env) press(id, selector, text string) {
	e.t.Helper()
	e.ok("click", map[string]any{"sessionId": id, "selector": selector})
	e.ok("wait_for", map[string]any{"sessionId": id, "text": text, "timeout": 30000})
}

// requestTo is the newest logged request whose URL contains part.
func (e *env) requestTo(id, part string) map[string]any {
	e.t.Helper()
	reqs := e.requests(id, map[string]any{"filter": part})
	if len(reqs) == 0 {
		e.t.Fatalf("no request to %s in the log", part)
	}
	return reqs[len(reqs)-1]
}

func TestGetRequest(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/har.html")
		e.press(id, "#fetch", "json server")
		e.press(id, "#post", "posted name=Ada")
		e.press(id, "#img", "image 1")

		seen := map[string]bool{}
		for _, r := range e.requests(id, nil) {
			rid, _ := r["id"].(string)
			if !strings.HasPrefix(rid, "r") || seen[rid] {
				t.Fatalf("request ids must be unique and start with r: %v", r)
			}
			seen[rid] = true
		}

		// A JSON response: headers and the text inline.
		js := e.requestTo(id, "/api/data?n=1")
		got := e.ok("get_request", map[string]any{"sessionId": id, "id": js["id"]})
		if got["id"] != js["id"] || got["method"] != "GET" || got["status"] != float64(200) {
			t.Fatalf("get_request(%v) = %v", js["id"], got)
		}
		if !hasHeader(got["responseHeaders"], "content-type", "application/json") || len(got["requestHeaders"].([]any)) == 0 {
			t.Fatalf("headers: %v / %v", got["requestHeaders"], got["responseHeaders"])
		}
		body := got["responseBody"].(map[string]any)
		if e.firefox() {
			// Firefox over WebDriver BiDi gives no response bodies, and says so.
			if un, _ := got["unavailable"].(map[string]any); un == nil || !strings.Contains(un["responseBody"].(string), "firefox") ||
				!strings.Contains(body["note"].(string), "firefox") || body["text"] != nil {
				t.Fatalf("Firefox's response body: %v", got)
			}
		} else if body["text"] != `{"source":"server","method":"GET"}` || body["size"] != float64(len(`{"source":"server","method":"GET"}`)) {
			t.Fatalf("response body: %v", body)
		}
		if rb := got["requestBody"].(map[string]any); rb["text"] != nil || rb["note"] == nil {
			t.Fatalf("a GET's request body must say there is none: %v", rb)
		}
		if tm, _ := got["timing"].(map[string]any); tm == nil {
			if un, _ := got["unavailable"].(map[string]any); un == nil || un["timing"] == nil {
				t.Fatalf("no timing and no word why: %v", got)
			}
		} else if tm["wait"].(float64) < 0 {
			t.Fatalf("timing: %v", tm)
		}

		// The POST's form body.
		post := e.ok("get_request", map[string]any{"sessionId": id, "id": e.requestTo(id, "/echo")["id"]})
		pb := post["requestBody"].(map[string]any)
		if e.firefox() {
			if post["method"] != "POST" || pb["text"] != nil || !strings.Contains(pb["note"].(string), "firefox") {
				t.Fatalf("Firefox's post: %v", post)
			}
		} else if post["method"] != "POST" || pb["text"] != "name=Ada&note=hi+there" || !strings.Contains(pb["mimeType"].(string), "x-www-form-urlencoded") {
			t.Fatalf("post: %v", post)
		}
		// Unknown and empty ids.
		bad := e.fail(engine.InvalidParameters, "get_request", map[string]any{"sessionId": id, "id": "r999999"})
		if bad["details"].(map[string]any)["field"] != "id" || !strings.Contains(bad["message"].(string), "r999999") {
			t.Fatalf("unknown id: %v", bad)
		}
		e.fail(engine.InvalidParameters, "get_request", map[string]any{"sessionId": id, "id": ""})
		if e.firefox() {
			return
		}

		// Cut at maxBodyBytes, saying so and the whole size.
		cut := e.ok("get_request", map[string]any{"sessionId": id, "id": js["id"], "maxBodyBytes": 10})["responseBody"].(map[string]any)
		if cut["text"] != `{"source":` || cut["truncated"] != true || cut["size"] != body["size"] || !strings.Contains(cut["note"].(string), "10 of") {
			t.Fatalf("cut body: %v", cut)
		}

		// The server's echo of the POST.
		if !strings.Contains(post["responseBody"].(map[string]any)["text"].(string), `"body":"name=Ada\u0026note=hi+there"`) {
			t.Fatalf("post's response: %v", post["responseBody"])
		}

		// An image goes to a file under the session's output directory.
		img := e.ok("get_request", map[string]any{"sessionId": id, "id": e.requestTo(id, "/pixel.png?har")["id"]})["responseBody"].(map[string]any)
		path, _ := img["path"].(string)
		want, _ := os.ReadFile(filepath.Join(testsite.Dir(), "pixel.png"))
		saved, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(saved, want) || img["size"] != float64(len(want)) || img["text"] != nil {
			t.Fatalf("image body %v: read %d bytes (%v), want the %d of pixel.png", img, len(saved), err, len(want))
		}
		if dir := filepath.Join(e.out, id, "bodies"); filepath.Dir(path) != dir {
			t.Fatalf("image saved to %s, want under %s", path, dir)
		}

		// A redirect has no body, and says so; it is no error.
		e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/redirect?to=/har.html"})
		hop := e.ok("get_request", map[string]any{"sessionId": id, "id": e.requestTo(id, "/redirect?to=")["id"]})
		if note, _ := hop["responseBody"].(map[string]any)["note"].(string); hop["status"] != float64(302) || !strings.Contains(note, "redirect (302)") {
			t.Fatalf("a redirect: %v", hop)
		}
	})
}

func hasHeader(hs any, name, valuePart string) bool {
	list, _ := hs.([]any)
	for _, h := range list {
		m := h.(map[string]any)
		if strings.EqualFold(m["name"].(string), name) && strings.Contains(m["value"].(string), valuePart) {
			return true
		}
	}
	return false
}

// harSchema compiles the HAR 1.2 schema of testdata/har-schema.
func harSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir := filepath.Join("..", "testdata", "har-schema")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no HAR schemas in %s: %v", dir, err)
	}
	c := jsonschema.NewCompiler()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := c.AddResource("https://har-schema.test/"+filepath.Base(f), doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("https://har-schema.test/har.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// harLog is the part of a HAR the tests read.
type harLog struct {
	Log struct {
		Version string            `json:"version"`
		Creator map[string]string `json:"creator"`
		Comment string            `json:"comment"`
		Pages   []struct {
			ID string `json:"id"`
		} `json:"pages"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	PageRef string `json:"pageref"`
	Comment string `json:"comment"`
	Request struct {
		Method   string `json:"method"`
		URL      string `json:"url"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int `json:"status"`
		Content struct {
			Size      int64  `json:"size"`
			Text      string `json:"text"`
			Encoding  string `json:"encoding"`
			Truncated bool   `json:"_truncated"`
			Comment   string `json:"comment"`
		} `json:"content"`
	} `json:"response"`
	Route     string             `json:"_route"`
	Offline   bool               `json:"_offline"`
	Source    string             `json:"_source"`
	Throttled map[string]float64 `json:"_throttled"`
}

// readHAR validates the file against HAR 1.2 and decodes it.
func readHAR(t *testing.T, path string) harLog {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the HAR is not JSON: %v", err)
	}
	if err := harSchema(t).Validate(inst); err != nil {
		t.Fatalf("the HAR does not validate against HAR 1.2: %v", err)
	}
	var h harLog
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	if h.Log.Version != "1.2" || h.Log.Creator["name"] != "browsermcp" || h.Log.Creator["version"] != "test" {
		t.Fatalf("log: version %q, creator %v", h.Log.Version, h.Log.Creator)
	}
	return h
}

// entryTo is the HAR's last entry whose URL contains part.
func entryTo(t *testing.T, h harLog, part string) harEntry {
	t.Helper()
	for i := len(h.Log.Entries) - 1; i >= 0; i-- {
		if strings.Contains(h.Log.Entries[i].Request.URL, part) {
			return h.Log.Entries[i]
		}
	}
	var urls []string
	for _, e := range h.Log.Entries {
		urls = append(urls, e.Request.URL)
	}
	t.Fatalf("no HAR entry for %s among %v", part, urls)
	return harEntry{}
}

func TestHAR(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/har.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
		e.fail(engine.NoRecording, "stop_har", at(map[string]any{}))
		e.fail(engine.InvalidParameters, "start_har", at(map[string]any{"content": "some"}))
		start := e.ok("start_har", at(map[string]any{}))
		if p, _ := start["path"].(string); !strings.HasPrefix(p, filepath.Join(e.out, id, "har")) {
			t.Fatalf("start_har path %v, want under %s", start, e.out)
		}
		e.fail(engine.RecordingActive, "start_har", at(map[string]any{}))

		e.ok("mock_response", at(map[string]any{"urlPattern": "*/mocked/*", "body": `{"mock":true}`}))
		e.press(id, "#fetch", "json server")
		e.press(id, "#post", "posted name=Ada")
		e.press(id, "#img", "image 1")
		e.press(id, "#mocked", `mocked {"mock":true}`)
		throttles := false
		if _, isErr := e.call("set_throttling", at(map[string]any{"latencyMs": 20, "downloadKbps": 50000})); !isErr {
			throttles = true
			e.ok("navigate", at(map[string]any{"url": site.URL + "/har.html?throttled"}))
			e.press(id, "#fetch", "json server")
			e.ok("set_throttling", at(map[string]any{"preset": "none"}))
			e.ok("set_offline", at(map[string]any{"offline": true}))
			if got := e.eval(id, `fetch("/api/data?offline").then(() => "loaded", () => "failed")`); got != "failed" {
				t.Fatalf("a fetch while offline: %v", got)
			}
			e.ok("set_offline", at(map[string]any{"offline": false}))
		}
		// A popup becomes a tab of the session; what it loads is recorded.
		e.ok("click", at(map[string]any{"selector": "#popup"}))
		e.ok("tabs", at(map[string]any{"action": "select", "index": 1}))
		e.press(id, "#fetch", "popup server")

		stop := e.ok("stop_har", at(map[string]any{}))
		e.fail(engine.NoRecording, "stop_har", at(map[string]any{}))
		path := stop["path"].(string)
		if st, err := os.Stat(path); err != nil || st.Size() != int64(stop["bytes"].(float64)) {
			t.Fatalf("stop_har %v: the file: %v", stop, err)
		}
		h := readHAR(t, path)
		if len(h.Log.Entries) != int(stop["entries"].(float64)) || len(h.Log.Pages) != int(stop["pages"].(float64)) || len(h.Log.Pages) < 2 {
			t.Fatalf("stop_har says %v; the file has %d entries, %d pages", stop, len(h.Log.Entries), len(h.Log.Pages))
		}
		// The popup's own document, which it loaded before it became a tab.
		if p := entryTo(t, h, "/har-popup.html"); p.Response.Status != 200 || p.PageRef == "" {
			t.Fatalf("the popup's document: %+v", p)
		}
		if e.firefox() {
			// Firefox over WebDriver BiDi gives no bodies: each entry says so.
			js := entryTo(t, h, "/api/data?n=1")
			if js.Response.Status != 200 || js.Response.Content.Text != "" || !strings.Contains(js.Response.Content.Comment, "firefox") || js.PageRef == "" {
				t.Fatalf("Firefox's JSON entry: %+v", js)
			}
			if post := entryTo(t, h, "/echo"); post.Request.Method != "POST" || post.Request.PostData != nil || !strings.Contains(post.Comment, "requestBody: firefox") {
				t.Fatalf("Firefox's POST entry: %+v", post)
			}
			if p := entryTo(t, h, "/api/data?from=popup"); p.Response.Status != 200 || p.PageRef == "" {
				t.Fatalf("popup entry: %+v", p)
			}
			if m := entryTo(t, h, "/mocked/thing.json"); m.Route != "mocked" {
				t.Fatalf("mocked entry: %+v", m)
			}
			return
		}
		if js := entryTo(t, h, "/api/data?n=1"); js.Response.Content.Text != `{"source":"server","method":"GET"}` || js.PageRef == "" {
			t.Fatalf("JSON entry: %+v", js)
		}
		post := entryTo(t, h, "/echo")
		if post.Request.Method != "POST" || post.Request.PostData == nil || post.Request.PostData.Text != "name=Ada&note=hi+there" ||
			!strings.Contains(post.Request.PostData.MimeType, "x-www-form-urlencoded") || post.Throttled != nil {
			t.Fatalf("POST entry: %+v", post)
		}
		img := entryTo(t, h, "/pixel.png?har")
		want, _ := os.ReadFile(filepath.Join(testsite.Dir(), "pixel.png"))
		if raw, err := base64.StdEncoding.DecodeString(img.Response.Content.Text); img.Response.Content.Encoding != "base64" || err != nil || !bytes.Equal(raw, want) {
			t.Fatalf("image entry: encoding %q, %d bytes (%v)", img.Response.Content.Encoding, len(raw), err)
		}
		if m := entryTo(t, h, "/mocked/thing.json"); m.Route != "mocked" || m.Response.Content.Text != `{"mock":true}` {
			t.Fatalf("mocked entry: %+v", m)
		}
		if throttles {
			th := entryTo(t, h, "/har.html?throttled")
			if th.Throttled["latencyMs"] != 20 || th.Throttled["downloadKbps"] != 50000 {
				t.Fatalf("throttled entry: %+v", th)
			}
			if off := entryTo(t, h, "/api/data?offline"); !off.Offline || off.Throttled != nil || off.Response.Status != 0 {
				t.Fatalf("offline entry: %+v", off)
			}
		}
		if p := entryTo(t, h, "/api/data?from=popup"); p.Response.Content.Text == "" || p.PageRef == "" {
			t.Fatalf("popup entry: %+v", p)
		}
	})
}

// TestHAROmitsContent: content omit keeps the entries and drops the
// bodies; maxBodyBytes cuts them, marked.
func TestHARContentAndCap(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/har.html")
	at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
	e.ok("start_har", at(map[string]any{"content": "omit"}))
	e.press(id, "#fetch", "json server")
	h := readHAR(t, e.ok("stop_har", at(map[string]any{}))["path"].(string))
	if js := entryTo(t, h, "/api/data?n=1"); js.Response.Content.Text != "" || js.Response.Status != 200 {
		t.Fatalf("content omit: %+v", js)
	}
	e.ok("start_har", at(map[string]any{"maxBodyBytes": 10}))
	e.press(id, "#post", "posted name=Ada")
	h = readHAR(t, e.ok("stop_har", at(map[string]any{}))["path"].(string))
	if p := entryTo(t, h, "/echo"); p.Response.Content.Text != `{"body":"n` || !p.Response.Content.Truncated || p.Response.Content.Size <= 10 {
		t.Fatalf("a body cut at 10 bytes: %+v", p.Response.Content)
	}
}

// TestHARBounds: a recording that reaches its size or time bound stops by
// itself, writes a valid HAR of what it has, and the next result says so.
func TestHARBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		limits engine.RecordingLimits
		says   string
	}{
		{"size", engine.RecordingLimits{MaxBytes: 6000}, "size bound"},
		{"time", engine.RecordingLimits{MaxDuration: time.Second}, "time bound"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, RecordingLimits: c.limits})
			id := e.open("/har.html")
			at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
			e.ok("start_har", at(map[string]any{}))
			var notice string
			for i := 0; i < 60 && notice == ""; i++ {
				out := e.ok("click", at(map[string]any{"selector": "#post"}))
				if n, _ := out["notices"].([]any); len(n) > 0 {
					notice = n[0].(string)
				}
				if notice == "" {
					out = e.ok("wait_for", at(map[string]any{"time": 0.2}))
					if n, _ := out["notices"].([]any); len(n) > 0 {
						notice = n[0].(string)
					}
				}
			}
			if !strings.Contains(notice, c.says) {
				t.Fatalf("no notice of the %s bound: %q", c.name, notice)
			}
			files, _ := filepath.Glob(filepath.Join(e.out, id, "har", "*.har"))
			if len(files) != 1 || !strings.Contains(notice, files[0]) {
				t.Fatalf("HAR files %v, notice %q", files, notice)
			}
			// The stop after it answers the written file and why it
			// stopped, then there is nothing left to stop.
			stop := e.ok("stop_har", at(map[string]any{}))
			if stop["path"] != files[0] || stop["stoppedBy"] == nil || !strings.Contains(stop["message"].(string), c.says) {
				t.Errorf("stop_har after the %s bound: %v, want %s", c.name, stop, files[0])
			}
			e.fail(engine.NoRecording, "stop_har", at(map[string]any{}))
			h := readHAR(t, files[0])
			if !strings.Contains(h.Log.Comment, "max_") {
				t.Fatalf("the log does not say it stopped by itself: %q", h.Log.Comment)
			}
			if st, _ := os.Stat(files[0]); c.limits.MaxBytes > 0 && st.Size() > c.limits.MaxBytes {
				t.Fatalf("the HAR has %d bytes, over its bound %d", st.Size(), c.limits.MaxBytes)
			}
			// A new recording can start.
			e.ok("start_har", at(map[string]any{}))
		})
	}
}

// TestHARKeepOnClose: closing the session finishes its HAR; a kept one
// stays, valid, under kept/, the other goes with the session's directory.
func TestHARKeepOnClose(t *testing.T) {
	out := t.TempDir()
	e := newEnvWith(t, sessions.Config{OutputDir: out}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, OutputDir: out})
	kept, gone := e.open("/har.html"), e.open("/har.html")
	keptPath := e.ok("start_har", map[string]any{"sessionId": kept, "keep": true})["path"].(string)
	gonePath := e.ok("start_har", map[string]any{"sessionId": gone})["path"].(string)
	if !strings.HasPrefix(keptPath, filepath.Join(e.out, "kept", kept)) {
		t.Fatalf("kept HAR at %s", keptPath)
	}
	e.press(kept, "#fetch", "json server")
	e.press(gone, "#fetch", "json server")
	e.ok("close_session", map[string]any{"sessionId": kept})
	e.ok("close_session", map[string]any{"sessionId": gone})
	h := readHAR(t, keptPath)
	if js := entryTo(t, h, "/api/data?n=1"); js.Response.Content.Text == "" {
		t.Fatalf("kept HAR entry: %+v", js)
	}
	if !strings.Contains(h.Log.Comment, engine.StoppedBySessionEnd) {
		t.Fatalf("kept HAR's comment %q", h.Log.Comment)
	}
	if _, err := os.Stat(gonePath); !os.IsNotExist(err) {
		t.Fatalf("the HAR of a session closed without keep is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.out, gone)); !os.IsNotExist(err) {
		t.Fatalf("the session's output directory outlived it: %v", err)
	}
}

// firefox reports whether e runs on eachEngine's Firefox (its subtest is
// named pw).
func (e *env) firefox() bool { return strings.HasSuffix(e.t.Name(), "/pw") }

// TestRecordingPathsAbsolute: with a relative --output-dir, the paths
// stop_har and get_request give are absolute, which a client that does not
// run in the server's directory can open.
func TestRecordingPathsAbsolute(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	abs := t.TempDir()
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || filepath.IsAbs(rel) {
		t.Skipf("no relative path to %s from %s", abs, cwd)
	}
	e := newEnvWith(t, sessions.Config{OutputDir: rel}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, OutputDir: rel})
	id := e.open("/har.html")
	at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
	e.ok("start_har", at(map[string]any{}))
	e.press(id, "#img", "image 1")
	path, _ := e.ok("stop_har", at(map[string]any{}))["path"].(string)
	if !strings.HasPrefix(path, filepath.Join(abs, id)+string(filepath.Separator)) {
		t.Errorf("stop_har's path %q, want it absolute under %s", path, abs)
	}
	var body string
	for _, r := range e.ok("get_request_log", at(map[string]any{}))["requests"].([]any) {
		r := r.(map[string]any)
		if r["resourceType"] == "image" {
			res := e.ok("get_request", at(map[string]any{"id": r["id"]}))
			body, _ = res["responseBody"].(map[string]any)["path"].(string)
		}
	}
	if !strings.HasPrefix(body, filepath.Join(abs, id)+string(filepath.Separator)) {
		t.Errorf("get_request's binary body path %q, want it absolute under %s", body, abs)
	}
}
