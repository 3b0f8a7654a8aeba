package page

import (
	"strings"

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

// modifierKeys are the modifier names ParseKey accepts, lower-cased, with
// the DOM name of the key each one presses.
var modifierKeys = map[string]string{
	"alt": "Alt", "control": "Control", "ctrl": "Control",
	"meta": "Meta", "command": "Meta", "cmd": "Meta", "shift": "Shift",
}

// ParseKey parses a key such as "Control+Shift+A" plus extra modifiers,
// and returns the modifier keys to hold down, in order, and the key. Keys
// come from chromedp's key table (kb), whose Key field is the DOM key name
// ("Control", "Enter", " ", "a"). An unknown key or modifier is
// INVALID_PARAMETERS.
func ParseKey(key string, extra []string) (mods []*kb.Key, k *kb.Key, err error) {
	// The key itself may be "+", as in "Control++".
	name, names := key, append([]string{}, extra...)
	if len(key) > 1 {
		if i := strings.LastIndex(key[:len(key)-1], "+"); i >= 0 {
			names, name = append(names, strings.Split(key[:i], "+")...), key[i+1:]
		}
	}
	for _, m := range names {
		mk, ok := modifierKeys[strings.ToLower(m)]
		if !ok {
			return nil, nil, engine.Errorf(engine.InvalidParameters, "unknown modifier %q: use Alt, Control, Meta or Shift", m).With("field", "modifiers")
		}
		mods = append(mods, keysByName[mk])
	}
	k = keysByName[name]
	if k == nil && len([]rune(name)) == 1 {
		k = kb.Keys[[]rune(name)[0]]
	}
	if k == nil && len(name) > 1 {
		if kk := keysByName[strings.ToUpper(name[:1])+name[1:]]; kk != nil {
			k = kk
		}
	}
	if k == nil {
		return nil, nil, engine.Errorf(engine.InvalidParameters, "unknown key %q: use a key name such as Enter, Tab, ArrowDown, Escape, F5, or one character", name).With("field", "key")
	}
	return mods, k, nil
}
