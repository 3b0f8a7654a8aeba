package tools

import (
	"context"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// FillIn is the input of fill.
type FillIn struct {
	ElementIn
	Value string `json:"value" size:"1048576"`
}

func fill(d *Deps) Tool {
	return sessionTool(d, "fill", "Replace a field's value.", pageAction,
		func(ctx context.Context, s engine.Session, in FillIn) (ActionOut, error) {
			tg := in.target()
			res, err := s.Fill(ctx, engine.FillRequest{Target: tg, Value: in.Value, Timeout: in.timeout(s)})
			if err != nil {
				return ActionOut{}, err
			}
			return actionOut("Filled "+tg.String(), res), nil
		})
}

// Option is one <option>.
type Option = engine.Option

// SelectIn is the input of select.
type SelectIn struct {
	ElementIn
	Values []string `json:"values" jsonschema:"Option values or labels"`
}

func (SelectIn) aliases() map[string]string { return map[string]string{"value": "values"} }

func (in SelectIn) validate() error {
	if len(in.Values) == 0 {
		return invalid("values", "values must list at least one option value or label")
	}
	return in.ElementIn.validate()
}

// SelectOut is the result of select: the options now selected, and what
// the change caused, as for click.
type SelectOut struct {
	Selected []Option `json:"selected"`
	ActionOut
}

func selectOption(d *Deps) Tool {
	return sessionTool(d, "select", "Select <select> options by value or label.", pageAction,
		func(ctx context.Context, s engine.Session, in SelectIn) (SelectOut, error) {
			tg := in.target()
			r, err := s.Select(ctx, engine.SelectRequest{Target: tg, Values: in.Values, Timeout: in.timeout(s)})
			if err != nil {
				return SelectOut{}, err
			}
			msg := fmt.Sprintf("Selected %d option(s) in %s", len(r.Selected), tg)
			return SelectOut{Selected: r.Selected, ActionOut: actionOut(msg, r.ActionResult)}, nil
		})
}

// checkTool clicks a checkbox or radio like a user when its state differs
// from want; the engine verifies the new state.
func checkTool(d *Deps, name, desc string, want bool) Tool {
	return sessionTool(d, name, desc, pageAction,
		func(ctx context.Context, s engine.Session, in ElementIn) (ActionOut, error) {
			tg := in.target()
			r, err := s.SetChecked(ctx, engine.CheckRequest{Target: tg, Checked: want, Timeout: in.timeout(s)})
			if err != nil {
				return ActionOut{}, err
			}
			msg := fmt.Sprintf("%sed %s", name, tg)
			if !r.Changed {
				msg = fmt.Sprintf("%s was already %s", tg, name+"ed")
			}
			// What the click caused (a navigation, a tab, a download) is
			// reported as for click.
			return actionOut(msg, r.ActionResult), nil
		})
}

func check(d *Deps) Tool {
	return checkTool(d, "check", "Check a checkbox or radio.", true)
}
func uncheck(d *Deps) Tool {
	return checkTool(d, "uncheck", "Uncheck a checkbox.", false)
}

// UploadIn is the input of upload_file.
type UploadIn struct {
	ElementIn
	Files []string `json:"files" jsonschema:"Existing files in the output dir or --allowed-paths" size:"4096"`
}

// Without a selector or ref, upload_file answers the file chooser an
// action opened: files fill it, and files: [] cancels it.
func (in UploadIn) validate() error {
	if !in.given() {
		return validTarget(in.Selector, in.Ref, false)
	}
	if len(in.Files) == 0 {
		return invalid("files", "files must list at least one path for a file input (files: [] without selector or ref cancels a file chooser)")
	}
	return in.ElementIn.validate()
}

func uploadFile(d *Deps) Tool {
	return sessionTool(d, "upload_file", "Set the files of a file input.", pageAction,
		func(ctx context.Context, s engine.Session, in UploadIn) (ActionOut, error) {
			files := make([]string, len(in.Files))
			for i, f := range in.Files {
				p, err := d.files.resolve(ctx, "files", f, false)
				if err != nil {
					return ActionOut{}, err
				}
				files[i] = p
			}
			r, err := s.Upload(ctx, engine.UploadRequest{Target: in.target(), Files: files, Timeout: in.timeout(s)})
			msg := fmt.Sprintf("Set %d file(s) on %s", len(in.Files), in.target())
			switch {
			case in.given():
			case len(files) == 0:
				msg = "Cancelled the file chooser"
			default:
				msg = fmt.Sprintf("Chose %d file(s) in the file chooser", len(files))
			}
			return actionOut(msg, r), err
		})
}
