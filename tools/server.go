package tools

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// instructions are sent once at initialize; they carry the conventions
// every tool shares so that tool schemas need not repeat them.
const instructions = `Drive real browsers in isolated sessions.
- create_session returns a sessionId; pass it to every page tool. Omit sessionId to use your active context (browser_context_*), at first one named "default" (created on first use). A name given to create_session works as a sessionId.
- Element tools take exactly one of selector (CSS, or XPath when it starts with /, ( or xpath=) or ref (from snapshot, e.g. e12 or f1e3 in a frame; uk:e12 in context uk, which a call without sessionId then acts on). A ref stays valid while its element lives; a stale one answers ELEMENT_NOT_FOUND with reason stale_ref: take a new snapshot.
- snapshot lines read: - role "name" [attrs] [ref=eN], nested; links end with their href. Page text is quoted when it holds " [ ] \ |; inside quotes \" \[ \] are the page's. "…" [+N chars]: N more characters (get_text has them). [offscreen]: read by screen readers, not seen.
- A dialog opened by an action is reported in its result; handle it with handle_dialog before other page tools.
- timeout parameters are milliseconds: element tools wait up to 5000 for their element, navigations 30000.
- Failures return isError with {errorCode, message, details, retryable, suggestion}; follow the suggestion.`

// Options configure the MCP server.
type Options struct {
	// Name and Version are the server's serverInfo in initialize; Name
	// defaults to browsermcp.
	Name    string
	Version string
	Log     *slog.Logger
	// DisabledTools are left out of the server by name, e.g. "evaluate"
	// when the security settings forbid script evaluation. A name that
	// matches no tool is ignored, so the setting can precede the tool.
	DisabledTools []string
	// MaxScreenshotBytes caps returned images (default 2 MiB); larger
	// images are re-encoded and shrunk to fit.
	MaxScreenshotBytes int
	// Caps are the opt-in groups to turn on (see OptIn and ParseCaps);
	// without any, only the core tools are registered.
	Caps []Group
	// OutputDir is where the server writes files for the agent (saved
	// state, downloads); empty: os.TempDir()/browsermcp. Tool arguments
	// that name server files must be inside it or AllowedPaths.
	OutputDir string
	// AllowedPaths are more directories whose files tools may read and
	// write (upload_file, save_state, restore_state); see files.go.
	AllowedPaths []string
	// NoFileAccess refuses every tool argument that names a server file
	// (security.enableFileUpload false).
	NoFileAccess bool
	// NoScriptEvaluation refuses clicks that would follow a javascript:
	// URL (security.enableScriptEvaluation false; evaluate goes through
	// DisabledTools).
	NoScriptEvaluation bool
	// OmitImages answers screenshots with the path of the file they were
	// saved to, under OutputDir/screenshots, instead of image content, for
	// clients that cannot take images.
	OmitImages bool
	// SnapshotMaxText cuts every name, value, text and URL of a snapshot
	// at this many characters, with a mark of how many more there are:
	// 0 is engine.DefaultMaxText (150), a negative number no cap.
	// get_text and get_attribute return strings whole.
	SnapshotMaxText int
	// ActionResult is what an action's result carries of the page:
	// changes (the default), none, or full (the whole outline).
	ActionResult string
	// ChangesCap is how many o200k tokens an action's changes may take;
	// 0: DefaultChangesCap.
	ChangesCap int
	// ClientRoots lets file arguments name files in the MCP client's
	// roots too, when it offers them (server_roots.go). Set it over stdio
	// only, where the client runs on the server's machine.
	ClientRoots bool
	// RecordingLimits bound each recording of the devtools tools
	// (--recording-max-size, --recording-max-duration); zero: the
	// defaults.
	RecordingLimits engine.RecordingLimits
	// Observers see every tool call, before and after it (observe.go),
	// after the server's own (the resource subscriptions).
	Observers []Observer
	// OutputSchemas lists each tool's typed output schema in tools/list
	// (--output-schemas), for clients that validate results against it.
	// Without it tools/list costs less than half as many tokens, and
	// results carry the same structuredContent (decision record
	// docs/decisions/2026-11-27-lean-tools-list.md).
	OutputSchemas bool
	// Codegen is the language of the Playwright code every successful
	// action's result carries (--codegen): typescript, python, or none
	// (explicitly codegen.None), which adds nothing. Unset (""), it is
	// typescript when Caps names Testing (not All) and none otherwise. With
	// Testing, the server also records each session's actions and
	// assertions for export_test.
	Codegen codegen.Language
}

// NewServer returns an MCP server with the core tools and those of the
// groups o.Caps turns on.
func NewServer(m *sessions.Manager, o Options) *server.MCPServer {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hooks := &server.Hooks{}
	secrets := newSecrets()
	d := &Deps{}
	comp := completions{d}
	name := o.Name
	if name == "" {
		name = "browsermcp"
	}
	s := server.NewMCPServer(name, o.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithToolHandlerMiddleware(secrets.middleware),
		server.WithInstructions(instructions),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(comp),
		server.WithResourceCompletionProvider(comp),
	)
	out := o.OutputDir
	if out == "" {
		out = filepath.Join(os.TempDir(), "browsermcp")
	}
	// The paths results give (recordings, bodies) are the client's to
	// open, and a client does not run in the server's directory.
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	// The subscriptions watch every call, before the tools are built: the
	// observers are fixed from then on.
	subs := newSubscriptions(s, hooks, d)
	observe := &observers{list: append([]Observer{subs}, o.Observers...), log: log, secrets: secrets}
	*d = Deps{Sessions: m, Log: log, MaxScreenshotBytes: o.MaxScreenshotBytes, OutputDir: out, secrets: secrets, observe: observe,
		files: newFileAccess(!o.NoFileAccess, out, o.AllowedPaths), noScript: o.NoScriptEvaluation, OmitImages: o.OmitImages,
		SnapshotMaxText: o.SnapshotMaxText, actionResult: o.ActionResult, changesCap: o.ChangesCap,
		recs: &recordings{out: out, limits: o.RecordingLimits}, version: o.Version}
	d.codegen, d.record = o.Codegen, enabled(o.Caps, Testing)
	d.requestLog = enabled(o.Caps, Network) && !slices.Contains(o.DisabledTools, "get_request_log")
	switch {
	case d.codegen == "" && slices.Contains(o.Caps, Testing):
		// --caps testing writes TypeScript unless --codegen says otherwise;
		// --caps all does not: code costs tokens in every result.
		d.codegen = codegen.TypeScript
	case d.codegen == "":
		d.codegen = codegen.None
	}
	if d.codegen != codegen.None || d.record {
		d.stepLog = &stepLog{}
		m.OnEnd(d.stepLog.end)
	}
	if d.actionResult == "" {
		d.actionResult = ActionResultChanges
	}
	if d.changesCap <= 0 {
		d.changesCap = DefaultChangesCap
	}
	if o.ClientRoots && !o.NoFileAccess {
		d.files.client = &clientRoots{log: log}
		d.files.client.register(s)
	}
	for _, t := range Tools(d) {
		if slices.Contains(o.DisabledTools, t.Def.Name) || !enabled(o.Caps, t.Group) {
			continue
		}
		def := t.Def
		if !o.OutputSchemas {
			def.RawOutputSchema = nil
		} else if d.codegen != codegen.None && stepTools[def.Name] {
			def.RawOutputSchema = withCodeSchema(def.RawOutputSchema)
		}
		h := t.Handler
		if t.Progress {
			h = withProgress(t.Def.Name, h)
		}
		s.AddTool(def, recovering(log, t.Def.Name, h))
	}
	// A session's kept screenshots go with it.
	m.OnEnd(d.shots.end)
	// Its recordings were finished by the engine's Close.
	m.OnEnd(d.recs.forget)
	addResources(s, hooks, d)
	addPrompts(s, secrets)
	return s
}
