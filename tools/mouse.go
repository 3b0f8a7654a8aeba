package tools

import (
	"context"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Vision is the opt-in group of coordinate-based mouse tools, for agents
// that work from screenshots.
const Vision Group = "vision"

// MouseIn is the input of mouse_click and mouse_move.
type MouseIn struct {
	SessionArg
	X          float64 `json:"x" jsonschema:"Viewport CSS px" range:"0,10000"`
	Y          float64 `json:"y" range:"0,10000"`
	Button     string  `json:"button,omitempty" jsonschema:"enum=left,enum=right,enum=middle"`
	ClickCount int     `json:"clickCount,omitempty" range:"0,3"`
}

// MouseDragIn is the input of mouse_drag.
type MouseDragIn struct {
	SessionArg
	X   float64 `json:"x" jsonschema:"Start, viewport CSS px" range:"0,10000"`
	Y   float64 `json:"y" range:"0,10000"`
	ToX float64 `json:"toX" range:"0,10000"`
	ToY float64 `json:"toY" range:"0,10000"`
}

func mouseTool[In sessionRefer](d *Deps, name, desc string, req func(In) engine.MouseRequest) Tool {
	return inGroup(Vision, sessionTool(d, name, desc, pageAction,
		func(ctx context.Context, s engine.Session, in In) (ActionOut, error) {
			r := req(in)
			res, err := s.Mouse(ctx, r)
			return actionOut(fmt.Sprintf("Mouse %s at %.0f,%.0f", r.Action, r.X, r.Y), res), err
		}))
}

func mouseClick(d *Deps) Tool {
	return mouseTool(d, "mouse_click", "Click at viewport coordinates.", func(in MouseIn) engine.MouseRequest {
		return engine.MouseRequest{Action: "click", X: in.X, Y: in.Y, Button: in.Button, ClickCount: in.ClickCount}
	})
}

func mouseMove(d *Deps) Tool {
	return mouseTool(d, "mouse_move", "Move the mouse to viewport coordinates.", func(in MouseIn) engine.MouseRequest {
		return engine.MouseRequest{Action: "move", X: in.X, Y: in.Y}
	})
}

func mouseDrag(d *Deps) Tool {
	return mouseTool(d, "mouse_drag", "Drag from one viewport point to another.", func(in MouseDragIn) engine.MouseRequest {
		return engine.MouseRequest{Action: "drag", X: in.X, Y: in.Y, ToX: in.ToX, ToY: in.ToY}
	})
}
