package tools

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Console is the opt-in capability group of the console log.
const Console Group = "console"

// ConsoleIn is the input of get_console_messages.
type ConsoleIn struct {
	SessionArg
	Level string `json:"level,omitempty" jsonschema:"This level or more severe; default all,enum=debug,enum=log,enum=info,enum=warning,enum=error"`
	Limit int    `json:"limit,omitempty" jsonschema:"Newest N (default 100)" range:"0,1000"`
}

func (in ConsoleIn) validate() error {
	return oneOf("level", in.Level, engine.ConsoleLevels...)
}

// ConsoleOut is the result of get_console_messages.
type ConsoleOut struct {
	engine.ConsoleLog
	SessionMeta
}

func getConsoleMessages(d *Deps) Tool {
	return inGroup(Console, sessionTool(d, "get_console_messages",
		"The page's recent console messages, uncaught exceptions (type exception, level error) and browser log entries, oldest first.", readOnly,
		func(ctx context.Context, s engine.Session, in ConsoleIn) (ConsoleOut, error) {
			limit := limitOr(in.Limit, 100)
			l, err := s.ConsoleMessages(ctx, engine.ConsoleQuery{Level: in.Level, Limit: limit})
			return ConsoleOut{ConsoleLog: l}, err
		}))
}
