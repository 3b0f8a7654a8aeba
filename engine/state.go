package engine

import (
	"context"
	"net/url"
	"slices"
	"strings"
)

// StorageState is a session's login state: its cookies and the
// localStorage of each origin it visited. The JSON shape is Playwright's
// storageState, so files move between the two.
type StorageState struct {
	Cookies []Cookie        `json:"cookies"`
	Origins []OriginStorage `json:"origins"`
}

// Cookie is one browser cookie.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain,omitempty"`
	Path     string  `json:"path,omitempty"`
	URL      string  `json:"url,omitempty" jsonschema:"Alternative to domain+path when setting" size:"65536"`
	Expires  float64 `json:"expires,omitempty" jsonschema:"Unix seconds; omit for a session cookie" range:"-1,253402300799"`
	HTTPOnly bool    `json:"httpOnly,omitempty"`
	Secure   bool    `json:"secure,omitempty"`
	SameSite string  `json:"sameSite,omitempty" jsonschema:"Strict, Lax or None"`
}

// OriginStorage is the localStorage of one origin.
type OriginStorage struct {
	Origin       string      `json:"origin"`
	LocalStorage []NameValue `json:"localStorage"`
}

// NameValue is one storage item.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Stater reads and writes a session's cookies and storage.
type Stater interface {
	// Cookies returns the session's cookies, only those sent to urls when
	// any are given.
	Cookies(ctx context.Context, urls []string) ([]Cookie, error)
	SetCookies(ctx context.Context, cookies []Cookie) error
	SaveState(ctx context.Context) (StorageState, error)
	// SetStorage adds the localStorage items of each origin. Callers use
	// RestoreState, which validates the origins and sets cookies first.
	SetStorage(ctx context.Context, origins []OriginStorage) error
	// DeleteCookies deletes the cookies that match f from the browser
	// context and returns them. Callers go through Bound, which checks
	// that f names something (a field, or All).
	DeleteCookies(ctx context.Context, f CookieFilter) ([]Cookie, error)
	// Storage reads or writes the localStorage or sessionStorage of one
	// origin, in the current tab's page or one of its frames. Callers go
	// through Bound, which validates req and normalises its origin.
	Storage(ctx context.Context, req StorageRequest) (StorageResult, error)
}

// CookieFilter picks the cookies DeleteCookies deletes: every one with All,
// else those that match each field given. Domain matches with or without
// its leading dot (".example.com" and "example.com" are the same filter,
// and match a cookie of either spelling); Name and Path match exactly.
type CookieFilter struct {
	Name, Domain, Path string
	All                bool
}

// Validate refuses a filter that names nothing (it would delete every
// cookie without saying so) and one that gives All with a field.
func (f CookieFilter) Validate() error {
	named := f.Name != "" || f.Domain != "" || f.Path != ""
	switch {
	case !named && !f.All:
		return Errorf(InvalidParameters, "give name, domain or path to choose the cookies, or all: true to delete every cookie").With("field", "all")
	case named && f.All:
		return Errorf(InvalidParameters, "all: true deletes every cookie; leave it out to delete by name, domain or path").With("field", "all")
	}
	return nil
}

// Match tells whether f picks c.
func (f CookieFilter) Match(c Cookie) bool {
	if f.All {
		return true
	}
	return (f.Name == "" || c.Name == f.Name) &&
		(f.Domain == "" || strings.EqualFold(strings.TrimPrefix(c.Domain, "."), strings.TrimPrefix(f.Domain, "."))) &&
		(f.Path == "" || c.Path == f.Path)
}

// StorageRequest is one operation on a Web Storage area.
type StorageRequest struct {
	// Session picks sessionStorage (the current tab's) over localStorage.
	Session bool
	// Action is get, set, remove or clear.
	Action string
	// Key is the item's name; get without a key lists every item. set and
	// remove need one.
	Key string
	// Value is what set stores.
	Value string
	// Origin is an http(s) origin (scheme://host[:port]); empty means the
	// origin of the current page. Bound normalises it.
	Origin string
}

// Area names the storage area, for messages.
func (r StorageRequest) Area() string {
	if r.Session {
		return "sessionStorage"
	}
	return "localStorage"
}

// Validate checks the action and what it needs, and normalises Origin to
// scheme://host[:port].
func (r *StorageRequest) Validate() error {
	switch r.Action {
	case "get", "set", "remove", "clear":
	default:
		return Errorf(InvalidParameters, "action must be one of get, set, remove, clear, not %q", r.Action).With("field", "action")
	}
	if r.Key == "" && (r.Action == "set" || r.Action == "remove") {
		return Errorf(InvalidParameters, "%s needs a key", r.Action).With("field", "key")
	}
	if r.Key != "" && r.Action == "clear" {
		return Errorf(InvalidParameters, "clear empties the whole origin and takes no key; use remove for one item").With("field", "key")
	}
	if r.Value != "" && r.Action != "set" {
		return Errorf(InvalidParameters, "only set takes a value").With("field", "value")
	}
	if r.Origin != "" {
		o, ok := OriginOf(r.Origin)
		if !ok {
			return Errorf(InvalidParameters, "origin %q is not an http(s) origin such as https://example.com", r.Origin).With("field", "origin")
		}
		if u, _ := url.Parse(r.Origin); u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
			return Errorf(InvalidParameters, "origin %q has a path, query or fragment; give scheme://host[:port], e.g. %s", r.Origin, o).With("field", "origin")
		}
		r.Origin = o
	}
	return nil
}

// StorageResult is what a StorageRequest found and did.
type StorageResult struct {
	// Origin is the origin whose storage was used.
	Origin string `json:"origin"`
	// Items are every item of the origin, for get without a key, sorted by
	// name.
	Items []NameValue `json:"items,omitempty"`
	// Found tells, for get, set and remove with a key, whether the key
	// was there before the call.
	Found bool `json:"found"`
	// Value is the item's value: for get when found, and for set as the
	// page reads it back.
	Value *string `json:"value,omitempty"`
	// Count is the number of items after the call; for clear, the number
	// it removed.
	Count int `json:"count"`
}

// OriginOf returns the origin (scheme://host[:port], lower case, default
// port left out) of an http(s) URL, and false for any other: about:blank,
// data:, file: and the like have an opaque origin and no storage of their
// own to name.
func OriginOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return u.Scheme + "://" + host, true
}

// StorageFrame is one frame of a page, for an engine's Storage: its id in
// the engine and its URL.
type StorageFrame struct {
	ID  string
	URL string
}

// StorageFrameFor picks the frame whose origin is req.Origin (the first
// frame's when empty; frames[0] is the page's main frame) and returns it
// with its origin, or ok false when no frame has that origin (see
// NoStorageFrame). An opaque origin of the page is an error.
func StorageFrameFor(req StorageRequest, frames []StorageFrame) (f StorageFrame, origin string, ok bool, err error) {
	if len(frames) == 0 {
		return StorageFrame{}, "", false, Errorf(BrowserError, "the page has no frame")
	}
	if req.Origin == "" {
		o, isHTTP := OriginOf(frames[0].URL)
		if !isHTTP {
			return StorageFrame{}, "", false, Errorf(InvalidParameters, "the page at %s has an opaque origin (as about:blank, data: and file: pages have), with no %s to read or write; navigate to an http(s) page first",
				Clip(frames[0].URL, 200), req.Area()).With("field", "origin").With("url", Clip(frames[0].URL, 200))
		}
		return frames[0], o, true, nil
	}
	for _, f := range frames {
		if o, isHTTP := OriginOf(f.URL); isHTTP && o == req.Origin {
			return f, o, true, nil
		}
	}
	return StorageFrame{}, req.Origin, false, nil
}

// NoStorageFrame is the error of a sessionStorage request for an origin
// that no frame of the current tab has: a tab's sessionStorage is reached
// only from a document of its origin in that tab. (localStorage is the
// browser context's, and engines reach it in a tab of their own.)
func NoStorageFrame(req StorageRequest) *Error {
	return Errorf(InvalidParameters, "no page or frame of %s is open in the current tab; navigate there first (the tab's %s is reachable only from a document of its origin)",
		req.Origin, req.Area()).With("field", "origin")
}

// RestoreState adds the cookies and the localStorage items of st to a
// session, after checking every origin; nothing is written when one is
// bad.
func RestoreState(ctx context.Context, s Stater, st StorageState) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if len(st.Cookies) > 0 {
		if err := s.SetCookies(ctx, st.Cookies); err != nil {
			return err
		}
	}
	if len(st.Origins) == 0 {
		return nil
	}
	return s.SetStorage(ctx, st.Origins)
}

// Validate checks that every origin is an http(s) origin, before an engine
// writes anything.
func (st StorageState) Validate() error {
	for _, o := range st.Origins {
		u, err := url.Parse(o.Origin)
		if err != nil || !strings.HasPrefix(u.Scheme, "http") || u.Host == "" {
			return Errorf(InvalidParameters, "origin %q is not an http(s) origin", o.Origin).With("field", "state.origins")
		}
	}
	return nil
}

// CookiesGone returns the cookies of del that after no longer holds (by
// name, domain and path): what a DeleteCookies really deleted.
func CookiesGone(del, after []Cookie) []Cookie {
	gone := []Cookie{}
	for _, c := range del {
		if !slices.ContainsFunc(after, func(a Cookie) bool { return a.Name == c.Name && a.Domain == c.Domain && a.Path == c.Path }) {
			gone = append(gone, c)
		}
	}
	return gone
}
