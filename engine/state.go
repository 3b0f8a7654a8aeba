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
