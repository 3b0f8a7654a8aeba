package tools

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TabsIn is the input of tabs.
type TabsIn struct {
	SessionArg
	Action string `json:"action" jsonschema:"enum=list,enum=new,enum=select,enum=close"`
	Index  *int   `json:"index,omitempty" jsonschema:"Default: current" range:"0,1000"`
	URL    string `json:"url,omitempty" jsonschema:"For new" size:"65536"`
}

func (in TabsIn) validate() error {
	return oneOf("action", in.Action, "list", "new", "select", "close")
}

// TabsOut is the result of tabs.
type TabsOut struct {
	Tabs    []engine.TabInfo `json:"tabs"`
	Current int              `json:"current"`
	SessionMeta
}

func tabs(d *Deps) Tool {
	return sessionTool(d, "tabs", "List, open, select or close tabs; popups become tabs.", pageAction,
		func(ctx context.Context, s engine.Session, in TabsIn) (TabsOut, error) {
			r, err := s.Tabs(ctx, engine.TabsRequest{Action: in.Action, Index: in.Index, URL: in.URL})
			return TabsOut{Tabs: r.Tabs, Current: r.Current}, err
		})
}
