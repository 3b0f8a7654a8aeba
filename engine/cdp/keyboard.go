package cdp

import (
	"context"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/seed4af8c199/browsermcp/engine"
)

// keysByName indexes chromedp's key table by DOM key name ("Enter",
// "ArrowDown", "a", "F5", ...).
var keysByName = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for _, k := range kb.Keys {
		if _, dup := m[k.Key]; !dup || k.Print {
			m[k.Key] = k
		}
	}
	m["Space"] = kb.Keys[' ']
	return m
}()

// modifierBits are CDP's modifier flags, with the key each one presses.
var modifierBits = map[string]struct {
	bit int64
	key string
}{
	"alt": {1, "Alt"}, "control": {2, "Control"}, "ctrl": {2, "Control"},
	"meta": {4, "Meta"}, "command": {4, "Meta"}, "cmd": {4, "Meta"}, "shift": {8, "Shift"},
}

// parseKey splits "Control+Shift+A" into modifiers and the key.
func parseKey(key string, extra []string) ([]string, *kb.Key, error) {
	// The key itself may be "+", as in "Control++".
	name, mods := key, append([]string{}, extra...)
	if len(key) > 1 {
		if i := strings.LastIndex(key[:len(key)-1], "+"); i >= 0 {
			mods, name = append(mods, strings.Split(key[:i], "+")...), key[i+1:]
		}
	}
	for _, m := range mods {
		if _, ok := modifierBits[strings.ToLower(m)]; !ok {
			return nil, nil, engine.Errorf(engine.InvalidParameters, "unknown modifier %q: use Alt, Control, Meta or Shift", m).With("field", "modifiers")
		}
	}
	k := keysByName[name]
	if k == nil && len([]rune(name)) == 1 {
		k = kb.Keys[[]rune(name)[0]]
	}
	if k == nil {
		if kk := keysByName[strings.ToUpper(name[:1])+name[1:]]; kk != nil && len(name) > 1 {
			k = kk
		}
	}
	if k == nil {
		return nil, nil, engine.Errorf(engine.InvalidParameters, "unknown key %q: use a key name such as Enter, Tab, ArrowDown, Escape, F5, or one character", name).With("field", "key")
	}
	return mods, k, nil
}

// Press presses a key with modifiers, like a user holding them down.
func (s *session) Press(ctx context.Context, req engine.PressRequest) (engine.ActionResult, error) {
	mods, key, err := parseKey(req.Key, req.Modifiers)
	if err != nil {
		return engine.ActionResult{}, err
	}
	if req.Timeout <= 0 {
		req.Timeout = engine.DefaultActionTimeout
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
func pressKeys(ctx context.Context, t *chromedp.Target, mods []string, key *kb.Key) error {
	var bits int64
	for _, name := range mods {
		mb := modifierBits[strings.ToLower(name)]
		bits |= mb.bit
		if err := dispatchKey(ctx, t, input.DispatchKeyEventTypeRawKeyDown, keysByName[mb.key], bits, false); err != nil {
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
		mb := modifierBits[strings.ToLower(mods[i])]
		bits &^= mb.bit
		if err := dispatchKey(ctx, t, input.DispatchKeyEventTypeKeyUp, keysByName[mb.key], bits, false); err != nil {
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
