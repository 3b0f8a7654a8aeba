package tools

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// HandleDialogIn is the input of handle_dialog.
type HandleDialogIn struct {
	SessionArg
	Accept     bool    `json:"accept" jsonschema:"false dismisses"`
	PromptText *string `json:"promptText,omitempty" jsonschema:"Answer to a prompt" size:"65536"`
}

func handleDialog(d *Deps) Tool {
	return sessionTool(d, "handle_dialog",
		"Accept or dismiss the open JavaScript dialog.",
		pageAction,
		func(ctx context.Context, s engine.Session, in HandleDialogIn) (ActionOut, error) {
			r, err := s.HandleDialog(ctx, engine.DialogRequest{Accept: in.Accept, PromptText: in.PromptText})
			if err != nil {
				return ActionOut{}, err
			}
			msg := "Dismissed the dialog"
			if in.Accept {
				msg = "Accepted the dialog"
			}
			return actionOut(msg, r), nil
		})
}
