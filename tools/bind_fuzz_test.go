package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// argumentSeeds are tool arguments as agents send them, right and wrong:
// the seeds of FuzzBind and FuzzToolArguments, beside the files under
// testdata/fuzz/.
var argumentSeeds = []string{
	`{}`,
	`null`,
	`[]`,
	`"selector"`,
	`42`,
	`{"sessionId": "s1", "selector": "#name"}`,
	`{"selector": "#a", "ref": "e1"}`,
	`{"ref": "e12", "limit": 3}`,
	`{"selector": ".item", "limit": -1}`,
	`{"selector": ".item", "limit": 1e20}`,
	`{"selector": ".item", "limit": 2.5}`,
	`{"selector": ".item", "limit": "20"}`,
	`{"selector": 7}`,
	`{"selector": null, "ref": null}`,
	`{"selector": "#pick", "values": ["a", "b"]}`,
	`{"selector": "#pick", "values": [1, {"x": []}]}`,
	`{"selector": "#pick", "values": "a"}`,
	`{"script": "(a, b) => a + b", "args": [1, 2]}`,
	`{"script": "1 + 1", "args": [null]}`,
	`{"script": ""}`,
	`{"type": "jpeg", "quality": 101, "fullPage": "yes"}`,
	`{"selector": "#x", "state": "gone", "timeout": -5}`,
	`{"x": 0, "y": 500, "ref": "e3"}`,
	`{"name": "work", "viewport": {"width": 0, "height": 10001}}`,
	`{"viewport": [800, 600]}`,
	`{"storageState": {"cookies": "none"}}`,
	`{"storageState": {"cookies": [{"name": "a", "value": "b", "expires": "soon"}]}}`,
	`{"extraHTTPHeaders": {"X-A": 1}}`,
	`{"cookies": []}`,
	`{"cookies": [{"name": "a", "value": "b", "url": "https://example.com"}]}`,
	`{"state": {"cookies": []}, "path": "/tmp/state.json"}`,
	`{"resourceType": "websocket", "urlPattern": "*"}`,
	`{"urlPattern": "no scheme", "status": 42, "headers": {"a b": "c\r\n"}}`,
	`{"text": "{{secret:0123456789abcdef01234567}}", "selector": "#pw"}`,
	`{"selector": "#\u0000", "sessionId": "\ud800"}`,
	`{"a": {"b": {"c": {"d": [[[[{}]]]]}}}}`,
}

// fuzzBinder binds arguments into one input type as its tool's handler
// does, with the required list of the tool's schema.
type fuzzBinder struct {
	name string
	bind func(mcp.CallToolRequest) error
	// also lists the codes other than INVALID_PARAMETERS that the input's
	// own validation returns by design.
	also []engine.Code
}

func binderOf[In any](name string, also ...engine.Code) fuzzBinder {
	shape := shapeOf[In](define[In, struct{}](name, "fuzz", local))
	return fuzzBinder{name: name, also: also, bind: func(req mcp.CallToolRequest) error {
		_, err := bind[In](req, shape)
		return err
	}}
}

// FuzzBind holds bind, over any JSON value as the arguments, to its
// contract for a spread of inputs (targets, numbers, arrays, free JSON,
// nested objects, cross-field rules): it never panics, and it returns
// either the bound input or an *engine.Error with INVALID_PARAMETERS.
func FuzzBind(f *testing.F) {
	binders := []fuzzBinder{
		binderOf[ElementIn]("get_text"),
		binderOf[FindElementsIn]("find_elements"),
		binderOf[SelectIn]("select"),
		binderOf[FillIn]("fill"),
		binderOf[EvaluateIn]("evaluate"),
		binderOf[ScreenshotIn]("screenshot"),
		binderOf[WaitForSelectorIn]("wait_for_selector"),
		binderOf[ScrollIn]("scroll"),
		binderOf[CreateSessionIn]("create_session"),
		binderOf[SetCookiesIn]("set_cookies"),
		binderOf[RestoreStateIn]("restore_state"),
		// A WebSocket resourceType is refused as UNSUPPORTED: the
		// arguments are well formed, the engines cannot do it.
		binderOf[BlockIn]("block_resource", engine.Unsupported),
		binderOf[MockIn]("mock_response", engine.Unsupported),
	}
	for _, s := range argumentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The arguments as mcp-go hands them over: any JSON value.
		var args any
		if err := json.Unmarshal(data, &args); err != nil {
			t.Skip()
		}
		req := mcp.CallToolRequest{}
		req.Params.Arguments = args
		for _, b := range binders {
			err := b.bind(req)
			if err == nil {
				continue
			}
			e, ok := err.(*engine.Error)
			if !ok {
				t.Fatalf("%s: bind(%s) returned %T %v, not an *engine.Error", b.name, data, err, err)
			}
			if e.Code != engine.InvalidParameters && !slices.Contains(b.also, e.Code) {
				t.Fatalf("%s: bind(%s) returned %s (%s), want %s", b.name, data, e.Code, e.Message, engine.InvalidParameters)
			}
			if e.Message == "" {
				t.Fatalf("%s: bind(%s) returned %s without a message", b.name, data, e.Code)
			}
		}
	})
}

// noBrowser is an engine without a browser: every session it is asked for
// fails, so a tool call ends once its arguments are bound.
type noBrowser struct{}

func (noBrowser) Name() string { return "fuzz/none" }
func (noBrowser) Start()       {}
func (noBrowser) Close() error { return nil }
func (noBrowser) NewSession(context.Context, engine.SessionOptions) (engine.Session, error) {
	return nil, engine.Errorf(engine.BrowserError, "no browser in this fuzz test")
}

// FuzzToolArguments sends any text as the arguments of a tools/call to the
// whole server (mcp-go's JSON-RPC decoding, the recovery and secret
// middleware, then the tool's handler) with every tool group on. Whatever
// the text, the server answers without panicking: text that is not JSON is
// a JSON-RPC parse error, and JSON gets a tool result, never a JSON-RPC
// error (which is what a recovered panic becomes). A failed result is one
// of the codes a call without a browser can end in: INVALID_PARAMETERS
// (or UNSUPPORTED, see FuzzBind) for the arguments, SESSION_NOT_FOUND or
// the engine's BROWSER_ERROR for the session.
func FuzzToolArguments(f *testing.F) {
	mgr := sessions.New(noBrowser{}, sessions.Config{MaxSessions: 1, Timeout: time.Minute})
	f.Cleanup(func() { mgr.Shutdown(context.Background()) })
	srv := NewServer(mgr, Options{Version: "fuzz", Caps: []Group{All}})
	var names []string
	for _, t := range Tools(&Deps{}) {
		names = append(names, t.Def.Name)
	}
	for i, s := range argumentSeeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Add(uint8(0), []byte(`{"name": `))
	f.Add(uint8(1), []byte(`{"sessionId": "s1"} trailing`))
	f.Add(uint8(2), []byte(`[1, 2,]`))
	allowed := []engine.Code{engine.InvalidParameters, engine.Unsupported, engine.SessionNotFound, engine.BrowserError}
	f.Fuzz(func(t *testing.T, tool uint8, data []byte) {
		name := names[int(tool)%len(names)]
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + string(data) + `}}`)
		resp, err := json.Marshal(srv.HandleMessage(t.Context(), msg))
		if err != nil {
			t.Fatalf("%s(%s): encoding the response: %v", name, data, err)
		}
		var env struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(resp, &env); err != nil {
			t.Fatalf("%s(%s): the response %s is not JSON-RPC: %v", name, data, resp, err)
		}
		switch {
		case !json.Valid(data):
			// Text that is not JSON may still complete the message into
			// some other valid request; only a broken message is sure to
			// fail as a whole.
			if !json.Valid(msg) && env.Error == nil {
				t.Fatalf("%s(%s): a message that is not JSON got %s, not a JSON-RPC error", name, data, resp)
			}
		case env.Error != nil && decodable(data):
			t.Fatalf("%s(%s): JSON arguments got a JSON-RPC error: %s", name, data, resp)
		case env.Error != nil:
			// Valid JSON that Go cannot hold (a number beyond float64) is
			// refused by the SDK's decoding of the request, before any tool
			// runs: a JSON-RPC error, as for any request it cannot read.
			if env.Error.Code != -32600 && env.Error.Code != -32602 {
				t.Fatalf("%s(%s): undecodable arguments got %s", name, data, resp)
			}
		case env.Result == nil:
			t.Fatalf("%s(%s): no result: %s", name, data, resp)
		case env.Result.IsError:
			var body ErrorBody
			if len(env.Result.Content) == 0 || json.Unmarshal([]byte(env.Result.Content[0].Text), &body) != nil {
				t.Fatalf("%s(%s): an error result without our error JSON: %s", name, data, resp)
			}
			if !slices.Contains(allowed, body.ErrorCode) {
				t.Fatalf("%s(%s): failed with %s (%s), want one of %v", name, data, body.ErrorCode, body.Message, allowed)
			}
		}
	})
}

// decodable reports whether Go's encoding/json can read data into an any:
// valid JSON can still hold a number beyond float64.
func decodable(data []byte) bool {
	var v any
	return json.Unmarshal(data, &v) == nil
}
