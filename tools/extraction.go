package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// evalInto runs an engine Evaluate and decodes its JSON result.
func evalInto[T any](ctx context.Context, s engine.Session, req engine.EvalRequest) (T, error) {
	var out T
	raw, err := s.Evaluate(ctx, req)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, engine.Wrap(engine.BrowserError, err, "decoding the page's answer: "+err.Error())
	}
	return out, nil
}

// applyJS returns the source of the function that the higher-order function
// hof (source under js/) makes of the function fn: the part of a script
// that varies is passed to it as an argument rather than spliced into its
// text.
func applyJS(hof, fn string) string { return "(" + hof + ")(" + fn + ")" }

// ElementIn targets one element, which it waits for up to timeout ms
// (the session's default action timeout, as actions do). The timeout has
// no description in the schema: README documents it once for every element
// tool, which keeps tools/list small.
type ElementIn struct {
	SessionArg
	TargetArg
	Timeout int `json:"timeout,omitempty" range:"0,300000"`
}

func (in ElementIn) validate() error { return in.TargetArg.validate() }

// req builds an element Evaluate that waits for its element.
func (in ElementIn) req(s engine.Session, fn string, args ...any) engine.EvalRequest {
	tg := in.target()
	return engine.EvalRequest{Target: &tg, Function: fn, Args: args, Timeout: in.timeout(s)}
}

// timeout is how long to wait for the element.
func (in ElementIn) timeout(s engine.Session) time.Duration {
	if in.Timeout > 0 {
		return ms(in.Timeout)
	}
	return engine.TimeoutsOf(s).Action
}

// TextOut is the result of get_text.
type TextOut struct {
	Text string `json:"text"`
	SessionMeta
}

//go:embed js/text.js
var textJS string

func getText(d *Deps) Tool {
	return sessionTool(d, "get_text", "Get an element's visible text.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (TextOut, error) {
			t, err := evalInto[string](ctx, s, in.req(s, textJS))
			return TextOut{Text: t}, err
		})
}

// AllTextOut is the result of get_all_text.
type AllTextOut struct {
	Texts []string `json:"texts"`
	Count int      `json:"count"`
	SessionMeta
}

//go:embed js/all_text.js
var allTextJS string

func getAllText(d *Deps) Tool {
	return sessionTool(d, "get_all_text", "Get the text of every match.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (AllTextOut, error) {
			r := in.req(s, allTextJS)
			r.All = true
			t, err := evalInto[[]string](ctx, s, r)
			return AllTextOut{Texts: t, Count: len(t)}, err
		})
}

// AttributeIn is the input of get_attribute.
type AttributeIn struct {
	ElementIn
	Name string `json:"name"`
}

func (AttributeIn) aliases() map[string]string { return map[string]string{"attribute": "name"} }

func (in AttributeIn) validate() error {
	if in.Name == "" {
		return invalid("name", "name must not be empty")
	}
	return in.ElementIn.validate()
}

// AttributeOut is the result of get_attribute.
type AttributeOut struct {
	Value  *string `json:"value" jsonschema:"null when the attribute is absent"`
	Exists bool    `json:"exists"`
	SessionMeta
}

//go:embed js/attribute.js
var attributeJS string

func getAttribute(d *Deps) Tool {
	return sessionTool(d, "get_attribute", "Get an element's attribute.", readOnly,
		func(ctx context.Context, s engine.Session, in AttributeIn) (AttributeOut, error) {
			v, err := evalInto[*string](ctx, s, in.req(s, attributeJS, in.Name))
			return AttributeOut{Value: v, Exists: v != nil}, err
		})
}

// ValueOut is the result of get_value.
type ValueOut struct {
	Value   FieldValue `json:"value" jsonschema:"String; array for multi-selects; null if the element has no value"`
	Checked *bool      `json:"checked,omitempty" jsonschema:"For checkboxes and radios"`
	SessionMeta
}

//go:embed js/field_value.js
var fieldValueJS string

func getValue(d *Deps) Tool {
	return sessionTool(d, "get_value", "Get a form field's current value.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (ValueOut, error) {
			return evalInto[ValueOut](ctx, s, in.req(s, fieldValueJS))
		})
}

// TableIn is the input of extract_table.
type TableIn struct {
	ElementIn
}

// TableOut is the result of extract_table.
type TableOut struct {
	Headers []string   `json:"headers,omitempty"`
	Rows    []TableRow `json:"rows" jsonschema:"Objects keyed by header when the table has one, else arrays of cell texts"`
	SessionMeta
}

//go:embed js/table.js
var tableJS string

func extractTable(d *Deps) Tool {
	return sessionTool(d, "extract_table", "Extract a table's rows (keyed by header).", readOnly,
		func(ctx context.Context, s engine.Session, in TableIn) (TableOut, error) {
			out, err := evalInto[TableOut](ctx, s, in.req(s, tableJS))
			if err == nil && out.Rows == nil {
				err = engine.Errorf(engine.ElementNotFound, "%s is not and does not contain a table", in.target()).With("reason", "not_a_table")
			}
			return out, err
		})
}

// LinksIn is the input of extract_links.
type LinksIn struct {
	SessionArg
	Selector string `json:"selector,omitempty" jsonschema:"Scope"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Default 500" range:"0,10000"`
}

// Link is one extracted link.
type Link struct {
	Text string `json:"text"`
	Href string `json:"href" jsonschema:"Absolute URL"`
}

// LinksOut is the result of extract_links.
type LinksOut struct {
	Links []Link `json:"links"`
	Total int    `json:"total" jsonschema:"Links found before the limit"`
	SessionMeta
}

var (
	// linksJS lists the links under an element.
	//
	//go:embed js/links.js
	linksJS string
	// onDocumentJS makes of a function on an element one on the document.
	//
	//go:embed js/on_document.js
	onDocumentJS string
	// documentLinksJS lists every link on the page.
	documentLinksJS = applyJS(onDocumentJS, linksJS)
)

func extractLinks(d *Deps) Tool {
	return sessionTool(d, "extract_links", "List links (text and absolute href).", readOnly,
		func(ctx context.Context, s engine.Session, in LinksIn) (LinksOut, error) {
			limit := limitOr(in.Limit, 500)
			req := engine.EvalRequest{Function: documentLinksJS, Args: []any{limit}}
			if in.Selector != "" {
				tg := engine.Target{Selector: in.Selector}
				req = engine.EvalRequest{Target: &tg, Function: linksJS, Args: []any{limit}, Timeout: ms(5000)}
			}
			out, err := evalInto[LinksOut](ctx, s, req)
			if out.Links == nil {
				out.Links = []Link{}
			}
			return out, err
		})
}

// MetadataOut is the result of get_page_metadata.
type MetadataOut struct {
	Title       string            `json:"title"`
	URL         string            `json:"url"`
	Description string            `json:"description,omitempty"`
	Canonical   string            `json:"canonical,omitempty"`
	Lang        string            `json:"lang,omitempty"`
	OpenGraph   map[string]string `json:"openGraph,omitempty" jsonschema:"og:* properties without the og: prefix"`
	SessionMeta
}

//go:embed js/page_metadata.js
var pageMetadataJS string

func getPageMetadata(d *Deps) Tool {
	return sessionTool(d, "get_page_metadata", "Title, URL, description, canonical, lang, Open Graph.", readOnly,
		func(ctx context.Context, s engine.Session, in PageIn) (MetadataOut, error) {
			return evalInto[MetadataOut](ctx, s, engine.EvalRequest{Function: pageMetadataJS})
		})
}
