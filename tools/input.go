package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

func hover(d *Deps) Tool {
	return sessionTool(d, "hover", "Move the mouse over an element.", pageAction,
		func(ctx context.Context, s engine.Session, in ElementIn) (ActionOut, error) {
			r, err := s.Hover(ctx, engine.HoverRequest{Target: in.target(), Timeout: in.timeout(s)})
			return actionOut("Hovered over "+in.target().String(), r), err
		})
}

// PressIn is the input of press.
type PressIn struct {
	SessionArg
	Key       string   `json:"key" jsonschema:"e.g. Enter, ArrowDown, a, Control+A"`
	Modifiers []string `json:"modifiers,omitempty" jsonschema:"Alt, Control, Meta, Shift"`
	TargetArg
}

func (in PressIn) validate() error {
	if in.Key == "" {
		return invalid("key", "key must not be empty")
	}
	return validTarget(in.Selector, in.Ref, false)
}

func press(d *Deps) Tool {
	return sessionTool(d, "press", "Press a key or combination, in the element if given.", pageAction,
		func(ctx context.Context, s engine.Session, in PressIn) (ActionOut, error) {
			req := engine.PressRequest{Key: in.Key, Modifiers: in.Modifiers}
			if in.given() {
				tg := in.target()
				req.Target = &tg
			}
			r, err := s.Press(ctx, req)
			return actionOut("Pressed "+strings.Join(append(append([]string{}, in.Modifiers...), in.Key), "+"), r), err
		})
}

// DragIn is the input of drag_and_drop.
type DragIn struct {
	SessionArg
	Source  string `json:"source" jsonschema:"Selector or ref" ref:"either"`
	Target  string `json:"target" jsonschema:"Selector or ref" ref:"either"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in DragIn) validate() error {
	if in.Source == "" {
		return invalid("source", "source must not be empty")
	}
	if in.Target == "" {
		return invalid("target", "target must not be empty")
	}
	return nil
}

func dragAndDrop(d *Deps) Tool {
	return sessionTool(d, "drag_and_drop", "Drag one element onto another with the mouse.", pageAction,
		func(ctx context.Context, s engine.Session, in DragIn) (ActionOut, error) {
			src, dst := engine.TargetOf(in.Source), engine.TargetOf(in.Target)
			r, err := s.Drag(ctx, engine.DragRequest{Source: src, Target: dst, Timeout: ms(in.Timeout)})
			return actionOut(fmt.Sprintf("Dragged %s onto %s", src, dst), r), err
		})
}

// UploadIn is the input of upload_file.
type UploadIn struct {
	ElementIn
	Files []string `json:"files" jsonschema:"Existing files in the output dir or --allowed-paths" size:"4096"`
}

func (in UploadIn) validate() error {
	if len(in.Files) == 0 {
		return invalid("files", "files must list at least one path")
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
			return actionOut(fmt.Sprintf("Set %d file(s) on %s", len(in.Files), in.target()), r), err
		})
}
