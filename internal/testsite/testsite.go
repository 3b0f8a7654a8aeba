// Package testsite serves the pages under testdata/site on 127.0.0.1 for
// browser tests, plus a few dynamic endpoints: /slow?ms=N (answers after N
// ms), /redirect?to=PATH (302), /status?code=N, /api/data (JSON naming the
// server and the method), /download?name=N&size=B (B bytes as an
// attachment named N; with inline=1 without Content-Disposition), and /hang
// (never answers).
package testsite

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// Dir is the absolute path of testdata/site.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "site")
}

// Handler serves the site.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(Dir())))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(n) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>slow</title><p>done</p>"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("code"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(n)
		w.Write([]byte("<!doctype html><title>status " + strconv.Itoa(n) + "</title>"))
	})
	// /login?user=U sets an HttpOnly session cookie; the page also keeps a
	// token in localStorage. /members greets a logged-in user by both.
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.Query().Get("user")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-" + u, Path: "/", HttpOnly: true})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>logged in</title><script>localStorage.setItem("token", "t-` + u + `")</script>`))
	})
	mux.HandleFunc("/members", func(w http.ResponseWriter, r *http.Request) {
		who := "anonymous"
		if c, err := r.Cookie("sid"); err == nil {
			who = c.Value
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>members</title><script>document.title = "` + who + ` " + (localStorage.getItem("token") || "no-token") + " " + navigator.language + " " + Intl.DateTimeFormat().resolvedOptions().timeZone</script>`))
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if h := r.URL.Query().Get("h"); h != "" {
			// One request header, as the server got it (Accept-Language).
			w.Write([]byte(`<!doctype html><title>` + html.EscapeString(r.Header.Get(h)) + `</title>`))
			return
		}
		w.Write([]byte(`<!doctype html><title>` + r.Header.Get("X-Test") + "|" + r.UserAgent() + `</title>`))
	})
	mux.HandleFunc("/api/data", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"source":"server","method":"` + r.Method + `"}`))
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		n, _ := strconv.Atoi(q.Get("size"))
		n = min(max(n, 0), 1<<20)
		w.Header().Set("Content-Type", "application/octet-stream")
		if q.Get("inline") == "" {
			w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": q.Get("name")}))
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n])
	})
	// /echo answers a request's method, content type and body as JSON.
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "contentType": r.Header.Get("Content-Type"), "body": string(body)})
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

// Start serves the site on 127.0.0.1 until the returned server is closed.
func Start() *httptest.Server {
	return httptest.NewServer(Handler())
}

// ReadyWhen holds, for each page of the site that changes by itself after
// its load, a JavaScript expression that is true once it has. A test that
// compares outlines of such a page across browsers, or launches, waits
// for it first: each browser then shows the same page however fast it
// loaded. (ticking.html, which never stops changing, is left out of those
// comparisons instead.)
var ReadyWhen = map[string]string{
	"/vitals.html": `document.title === "vitals: shifted"`, // a banner 300 ms after the load
}
