package tools

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
)

// locate returns the Playwright locator of the element t names: the one
// seam generate_locator, the code line of every action (--codegen) and the
// recorded session (export_test) share. It must be called before an
// action, while the element is still there.
//
// For now a selector stands as itself and a ref has no locator; the
// in-page locator generator replaces this.
func locate(ctx context.Context, s engine.Session, t engine.Target) (codegen.Locator, error) {
	if t.Ref != "" {
		return codegen.Locator{}, engine.Errorf(engine.Unsupported, "no locator for ref %s yet", t.Ref)
	}
	kind, expr := engine.ParseSelector(t.Selector)
	if kind == engine.XPath {
		return codegen.Locator{Kind: codegen.ByCSS, Value: "xpath=" + expr}, nil
	}
	return codegen.Locator{Kind: codegen.ByCSS, Value: expr}, nil
}
