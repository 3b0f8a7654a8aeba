package pw

import (
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// CrashRenderer crashes the renderer of s's current tab through a CDP
// session (Page.crash), for tests; Chromium only. It returns once the
// command is on its way: Page.crash is not answered when it works.
func CrashRenderer(s engine.Session) error {
	t, ok := engine.As[*tabbed](s)
	if !ok {
		return fmt.Errorf("%T is not this engine's session", s)
	}
	cur := t.tabs.Current()
	cs, err := cur.bctx.NewCDPSession(cur.page)
	if err != nil {
		return err
	}
	go func() { _, _ = cs.Send("Page.crash", nil) }()
	return nil
}
