package cdp

import (
	"context"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// modifierBit is CDP's modifier flag of each modifier key, by DOM key name.
var modifierBit = map[string]int64{"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}

// Press presses a key with modifiers, like a user holding them down.
func (s *session) Press(ctx context.Context, req engine.PressRequest) (engine.ActionResult, error) {
	mods, key, err := page.ParseKey(req.Key, req.Modifiers)
	if err != nil {
		return engine.ActionResult{}, err
	}
	var res engine.ActionResult
	err = s.run(ctx, "press "+req.Key, func(ctx context.Context, t *chromedp.Target) error {
		m := s.st.mark()
		if req.Target != nil {
			if _, err := s.evalOn(ctx, t, engine.EvalRequest{Target: req.Target, Timeout: req.Timeout,
				Function: `el => { el.focus(); }`}); err != nil {
				return err
			}
		}
		var err error
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			return pressKeys(ctx, t, mods, key)
		})
		return err
	})
	return res, err
}

// pressKeys holds the modifiers down around one key press.
func pressKeys(ctx context.Context, t *chromedp.Target, mods []*kb.Key, key *kb.Key) error {
	var bits int64
	for _, m := range mods {
		bits |= modifierBit[m.Key]
		if err := dispatchKey(ctx, t, input.DispatchKeyEventTypeRawKeyDown, m, bits, false); err != nil {
			return err
		}
	}
	// A key with Control, Alt or Meta types no text: it is a shortcut.
	text := key.Print && bits&^8 == 0
	typ := input.DispatchKeyEventTypeRawKeyDown
	if text {
		typ = input.DispatchKeyEventTypeKeyDown
	}
	if err := dispatchKey(ctx, t, typ, key, bits, text); err != nil {
		return err
	}
	if err := dispatchKey(ctx, t, input.DispatchKeyEventTypeKeyUp, key, bits, false); err != nil {
		return err
	}
	for i := len(mods) - 1; i >= 0; i-- {
		bits &^= modifierBit[mods[i].Key]
		if err := dispatchKey(ctx, t, input.DispatchKeyEventTypeKeyUp, mods[i], bits, false); err != nil {
			return err
		}
	}
	return nil
}

func dispatchKey(ctx context.Context, t *chromedp.Target, typ input.DispatchKeyEventType, k *kb.Key, mods int64, text bool) error {
	p := input.DispatchKeyEventParams{Type: typ, Key: k.Key, Code: k.Code, Modifiers: mods,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native}
	if text {
		p.Text, p.UnmodifiedText = k.Text, k.Unmodified
		if mods&8 != 0 && k.Text != "" {
			p.Text = strings.ToUpper(k.Text)
		}
	}
	_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p)
	return err
}
