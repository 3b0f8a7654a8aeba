package httpserve

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// MCP sessions (Mcp-Session-Id, protocol versions up to 2025-06-18) are
// verifiable by any replica: an id is a random part and an HMAC of it and
// of the owning key's identity, under a secret derived from the configured
// API keys. Replicas started with the same keys accept each other's ids, a
// made-up id is refused (404), and an id minted for one key is refused for
// another. Our browser sessions never hang on these ids (they are keyed by
// our own sessionId), so nothing else needs sharing between replicas.
//
// A DELETE terminates an id on the replica that received it only: that
// replica answers 404 for it from then on, while another replica would
// still accept it until it restarts. The terminated ids are kept in
// memory, at most maxTerminated of them (the oldest are forgotten first).

const (
	sessionPrefix = "mcp-session-"
	maxTerminated = 100_000
)

// errUnknownSession is Validate's answer for an id this server never
// issued to the caller's key.
var errUnknownSession = errors.New("unknown session id")

// sessionIDs mints and checks Mcp-Session-Id values.
type sessionIDs struct {
	secret []byte

	mu         sync.Mutex
	terminated map[string]struct{}
	order      []string // terminated ids, oldest first
}

// newSessionIDs derives the HMAC secret from the API keys, in an order of
// their own, so that replicas given the same keys in any order agree.
func newSessionIDs(keys []string) *sessionIDs {
	ks := slices.Clone(keys)
	slices.Sort(ks)
	h := sha256.New()
	h.Write([]byte("browsermcp Mcp-Session-Id v1\x00"))
	for _, k := range ks {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return &sessionIDs{secret: h.Sum(nil), terminated: map[string]struct{}{}}
}

func (s *sessionIDs) mac(owner, random string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(owner))
	m.Write([]byte{0})
	m.Write([]byte(random))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// valid says whether id was minted for owner.
func (s *sessionIDs) valid(owner, id string) bool {
	rest, ok := strings.CutPrefix(id, sessionPrefix)
	if !ok {
		return false
	}
	random, sum, ok := strings.Cut(rest, ".")
	if !ok || random == "" {
		return false
	}
	return hmac.Equal([]byte(sum), []byte(s.mac(owner, random)))
}

func (s *sessionIDs) isTerminated(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.terminated[id]
	return ok
}

func (s *sessionIDs) terminate(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.terminated[id]; ok {
		return
	}
	s.terminated[id] = struct{}{}
	s.order = append(s.order, id)
	if len(s.order) > maxTerminated {
		delete(s.terminated, s.order[0])
		s.order = s.order[1:]
	}
}

// ResolveSessionIdManager binds the ids to the key of the request: mcp-go
// calls it for every request (with nil outside one, when it only
// terminates ids).
func (s *sessionIDs) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	owner := ""
	if r != nil {
		owner = engine.OwnerOf(r.Context())
	}
	return ownedIDs{s, owner, r != nil}
}

// ownedIDs is the SessionIdManager of one key.
type ownedIDs struct {
	*sessionIDs
	owner     string
	inRequest bool
}

func (o ownedIDs) Generate() string {
	b := make([]byte, 16)
	rand.Read(b)
	random := base64.RawURLEncoding.EncodeToString(b)
	return sessionPrefix + random + "." + o.mac(o.owner, random)
}

func (o ownedIDs) Validate(id string) (bool, error) {
	if !o.valid(o.owner, id) {
		return false, errUnknownSession
	}
	return o.isTerminated(id), nil
}

func (o ownedIDs) Terminate(id string) (bool, error) {
	if o.inRequest && !o.valid(o.owner, id) {
		return false, errUnknownSession
	}
	o.terminate(id)
	return false, nil
}

// requireSession answers 400 for a request that needs an MCP session and
// names none, and 404 for a DELETE of an id that is not the caller's or
// already ended: mcp-go would answer the first 404, and the second 200 or
// 500. Protocol 2026-07-28 has no MCP sessions, so its requests pass to
// mcp-go, which serves them without one.
func (s *sessionIDs) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		id := r.Header.Get(server.HeaderKeySessionID)
		switch r.Method {
		case http.MethodDelete:
			switch {
			case id == "":
				httpError(w, http.StatusBadRequest, "missing_session", "DELETE /mcp needs the Mcp-Session-Id header of the session to end")
				return
			case !s.valid(engine.OwnerOf(r.Context()), id) || s.isTerminated(id):
				httpError(w, http.StatusNotFound, "session_not_found", "no such MCP session: initialize a new one")
				return
			}
		case http.MethodPost:
			if id == "" && r.Body != nil {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					httpError(w, http.StatusBadRequest, "bad_request", "reading the request: "+err.Error())
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				if postNeedsSession(body) {
					httpError(w, http.StatusBadRequest, "missing_session", "this request needs the Mcp-Session-Id header that initialize returned")
					return
				}
			}
		case http.MethodGet:
			if id == "" {
				httpError(w, http.StatusBadRequest, "missing_session", "GET /mcp needs the Mcp-Session-Id header from initialize")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// postNeedsSession says whether a POSTed message must carry an
// Mcp-Session-Id: every request and notification but initialize, unless
// it states protocol 2026-07-28 in its _meta.
func postNeedsSession(body []byte) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" || m.Method == string(mcp.MethodInitialize) {
		return false
	}
	return !mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}
