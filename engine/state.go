package engine

import (
	"context"
	"net/url"
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
	URL      string  `json:"url,omitempty" jsonschema:"Alternative to domain+path when setting"`
	Expires  float64 `json:"expires,omitempty" jsonschema:"Unix seconds; omit for a session cookie"`
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
	RestoreState(ctx context.Context, st StorageState) error
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
