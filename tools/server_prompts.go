package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Prompts (seed 002 §4) are ready-made task descriptions written for this
// server's tools. A missing required argument is a JSON-RPC error whose
// message starts with INVALID_PARAMETERS.
//
// authenticate never puts the password into the conversation: the prompt
// gets a placeholder such as {{secret:3f9a...}}, and when the same API key
// passes exactly that placeholder as the text of type, the server types the
// password instead. A placeholder is good for secretTTL and only for the
// key that asked for the prompt; the password never appears in a prompt, a
// tool result or a log.

type promptArg struct {
	name, desc string
	required   bool
	def        string
}

type prompt struct {
	name, desc string
	args       []promptArg
	render     func(a map[string]string, sec *secrets, owner string) (string, error)
}

func prompts() []prompt {
	return []prompt{
		{"scrape_website", "Scrape structured data from a website", []promptArg{
			{"url", "The URL to scrape", true, ""},
			{"selectors", `JSON object mapping field names to CSS selectors, e.g. {"title": "h1"}`, true, ""},
		}, renderScrape},
		{"fill_form", "Fill out and submit a web form", []promptArg{
			{"url", "The URL containing the form", true, ""},
			{"form_data", "JSON object mapping field selectors to the values to type", true, ""},
			{"submit_button", "Selector of the submit button", false, "button[type='submit']"},
		}, renderFillForm},
		{"visual_regression", "Compare page screenshots for visual changes", []promptArg{
			{"url", "The URL to test", true, ""},
			{"baseline_screenshot", "Path or URI of the baseline screenshot", true, ""},
		}, renderVisual},
		{"authenticate", "Log into a website", []promptArg{
			{"url", "Login page URL", true, ""},
			{"username", "Username or email", true, ""},
			{"password", "Password; it is never shown in the conversation (see the prompt text)", true, ""},
			{"username_selector", "Username field selector", false, "input[name='username'], input[type='email']"},
			{"password_selector", "Password field selector", false, "input[name='password'], input[type='password']"},
			{"submit_selector", "Submit button selector", false, "button[type='submit']"},
		}, renderAuthenticate},
		{"e2e_test", "Run an end-to-end user journey test", []promptArg{
			{"test_scenario", "Description of the user journey", true, ""},
			{"start_url", "Starting URL", true, ""},
		}, renderE2E},
	}
}

func addPrompts(s *server.MCPServer, sec *secrets) {
	for _, p := range prompts() {
		opts := []mcp.PromptOption{mcp.WithPromptDescription(p.desc)}
		for _, a := range p.args {
			desc := a.desc
			if a.def != "" {
				desc += fmt.Sprintf(" (default %s)", a.def)
			}
			ao := []mcp.ArgumentOption{mcp.ArgumentDescription(desc)}
			if a.required {
				ao = append(ao, mcp.RequiredArgument())
			}
			opts = append(opts, mcp.WithArgument(a.name, ao...))
		}
		s.AddPrompt(mcp.NewPrompt(p.name, opts...), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args, err := p.bind(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			text, err := p.render(args, sec, engine.OwnerOf(ctx))
			if err != nil {
				return nil, err
			}
			return mcp.NewGetPromptResult(p.desc, []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		})
	}
}

// jsonArgs are the prompt arguments that hold a JSON object.
var jsonArgs = map[string]bool{"selectors": true, "form_data": true}

// bind checks a prompts/get's arguments against p and returns them with
// the defaults filled in: a missing required argument, an unknown one or a
// JSON argument that is not an object is INVALID_PARAMETERS. PromptCheck
// runs it before mcp-go does, to answer with -32602.
func (p prompt) bind(raw map[string]string) (map[string]string, error) {
	args := map[string]string{}
	for _, a := range p.args {
		v := strings.TrimSpace(raw[a.name])
		if v == "" {
			if a.required {
				return nil, invalid(a.name, "missing required argument %q", a.name)
			}
			v = a.def
		}
		if jsonArgs[a.name] {
			if _, err := jsonObject(a.name, v); err != nil {
				return nil, err
			}
		}
		args[a.name] = v
	}
	for k := range raw {
		if !slices.ContainsFunc(p.args, func(a promptArg) bool { return a.name == k }) {
			return nil, invalid(k, "unknown argument %q", k)
		}
	}
	return args, nil
}

// jsonObject parses a JSON object argument into ordered key/value lines.
func jsonObject(field, raw string) ([][2]string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil || m == nil {
		return nil, invalid(field, "%s must be a JSON object, e.g. {\"name\": \"#name\"}", field)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][2]string, len(keys))
	for i, k := range keys {
		v, ok := m[k].(string)
		if !ok {
			b, _ := json.Marshal(m[k])
			v = string(b)
		}
		out[i] = [2]string{k, v}
	}
	return out, nil
}

const openSession = "Call create_session and use the sessionId it returns in every call below; call close_session when you are done."

func renderScrape(a map[string]string, _ *secrets, _ string) (string, error) {
	sel, err := jsonObject("selectors", a["selectors"])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I need to scrape data from %s. Please:\n\n", a["url"])
	fmt.Fprintf(&b, "1. %s\n", openSession)
	fmt.Fprintf(&b, "2. Call navigate with url %q and waitUntil \"load\"; note the final URL and title it returns (after redirects).\n", a["url"])
	b.WriteString("3. Take a snapshot to see the page, then extract these fields:\n")
	for _, kv := range sel {
		fmt.Fprintf(&b, "   - %s: %s\n", kv[0], kv[1])
	}
	b.WriteString("4. Return the extracted data as a JSON object, with metadata: timestamp, page title and final URL.\n\n")
	b.WriteString("If a tool answers with an errorCode, follow its suggestion; report fields you could not find as null.")
	return b.String(), nil
}

func renderFillForm(a map[string]string, _ *secrets, _ string) (string, error) {
	fields, err := jsonObject("form_data", a["form_data"])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Please fill out and submit the form at %s:\n\n", a["url"])
	fmt.Fprintf(&b, "1. %s\n", openSession)
	fmt.Fprintf(&b, "2. Call navigate with url %q.\n", a["url"])
	b.WriteString("3. Fill each field with type (clear: true), using the field as selector:\n")
	for _, kv := range fields {
		fmt.Fprintf(&b, "   - %s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "4. Click the submit button with click, selector %q.\n", a["submit_button"])
	b.WriteString("5. The click result says whether it navigated; take a snapshot of the result page.\n")
	b.WriteString("6. Return the resulting URL and any success or error messages on the page.")
	return b.String(), nil
}

func renderVisual(a map[string]string, _ *secrets, _ string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Perform visual regression testing for %s:\n\n", a["url"])
	fmt.Fprintf(&b, "1. %s\n", openSession)
	fmt.Fprintf(&b, "2. Call navigate with url %q and waitUntil \"networkidle\".\n", a["url"])
	b.WriteString("3. Take a full-page screenshot with the screenshot tool (or read the resource browser:///screenshot/{sessionId}/0/latest).\n")
	fmt.Fprintf(&b, "4. Compare it with the baseline: %s\n", a["baseline_screenshot"])
	b.WriteString("5. Report any visual differences and where on the page they are.\n")
	b.WriteString("6. Return an estimate of the changed area in percent and a description of each change.")
	return b.String(), nil
}

func renderAuthenticate(a map[string]string, sec *secrets, owner string) (string, error) {
	handle, err := sec.put(owner, a["password"])
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Please log into %s:\n\n", a["url"])
	b.WriteString("1. Call create_session and use its sessionId below; keep the session open afterwards, because it holds the login cookies.\n")
	fmt.Fprintf(&b, "2. Call navigate with url %q.\n", a["url"])
	fmt.Fprintf(&b, "3. Call type with selector %q and text %q.\n", a["username_selector"], a["username"])
	fmt.Fprintf(&b, "4. Call type with selector %q and text %q exactly. This placeholder stands for the password, which is not shown here; the server types the real password in its place.\n", a["password_selector"], handle)
	fmt.Fprintf(&b, "5. Call click with selector %q.\n", a["submit_selector"])
	b.WriteString("6. Check with snapshot that the login succeeded (no error message; a signed-in page).\n")
	b.WriteString("7. Return the sessionId for further requests.\n\n")
	b.WriteString("If a second factor is asked for, stop and ask the user.")
	return b.String(), nil
}

func renderE2E(a map[string]string, _ *secrets, _ string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Execute this end-to-end test scenario: %s\n\nStarting at: %s\n\n", a["test_scenario"], a["start_url"])
	fmt.Fprintf(&b, "%s Then navigate to the start URL.\n\nFor each step:\n", openSession)
	b.WriteString("1. Say what you are doing.\n2. Do it with navigate, click or type.\n3. Take a snapshot (and a screenshot where the look matters).\n4. Verify the expected outcome and report any issue.\n\n")
	b.WriteString("At the end, give: the result (pass or fail), the evidence of each step, timings, and every error (errorCode and message) you met.")
	return b.String(), nil
}
