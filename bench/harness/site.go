package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// site serves the task pages of bench/site under /task/, with the large
// peerbench pages' bodies spliced in where a page says
// <!--#include wikipedia--> or <!--#include generated-->, and the files
// of testdata/site/peerbench (px.gif) beside them; testdata/site/peerbench
// as it is under /peerbench/, for the steps scenario. It records the events
// the pages report at /event, by run.
type site struct {
	tasks, peerbench string
	base             string
	srv              *http.Server

	mu     sync.Mutex
	events map[string][]string
}

func newSite(root string) (*site, error) {
	s := &site{
		tasks:     filepath.Join(root, "bench/site"),
		peerbench: filepath.Join(root, "testdata/site/peerbench"),
		events:    map[string][]string{},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.base = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/task/", s.page)
	mux.Handle("/peerbench/", noStore(http.StripPrefix("/peerbench/", http.FileServer(http.Dir(s.peerbench)))))
	mux.HandleFunc("/event", s.event)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *site) close() { s.srv.Close() }

// url is a task page's address for one run.
func (s *site) url(page, run string) string {
	return s.base + "/task/" + page + "?run=" + run
}

func (s *site) page(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Path)
	w.Header().Set("Cache-Control", "no-store")
	b, err := os.ReadFile(filepath.Join(s.tasks, name))
	if err != nil {
		http.ServeFile(w, r, filepath.Join(s.peerbench, name))
		return
	}
	b, err = s.include(b)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b)
}

// includes name the pages whose bodies a task page may splice in.
var includes = map[string]string{"wikipedia": "large.html", "generated": "large-gen.html"}

func (s *site) include(page []byte) ([]byte, error) {
	for key, file := range includes {
		mark := []byte("<!--#include " + key + "-->")
		if !bytes.Contains(page, mark) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.peerbench, file))
		if err != nil {
			return nil, err
		}
		body, err := innerBody(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		page = bytes.Replace(page, mark, body, 1)
	}
	return page, nil
}

// innerBody is what lies between a page's <body ...> and </body>.
func innerBody(b []byte) ([]byte, error) {
	i := bytes.Index(b, []byte("<body"))
	if i < 0 {
		return nil, fmt.Errorf("no <body>")
	}
	j := bytes.IndexByte(b[i:], '>')
	k := bytes.LastIndex(b, []byte("</body>"))
	if j < 0 || k < i+j {
		return nil, fmt.Errorf("no </body>")
	}
	return b[i+j+1 : k], nil
}

func (s *site) event(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.events[q.Get("run")] = append(s.events[q.Get("run")], q.Get("e"))
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// reported waits up to wait for the page of run to report e.
func (s *site) reported(run, e string, wait time.Duration) (bool, []string) {
	deadline := time.Now().Add(wait)
	for {
		s.mu.Lock()
		got := slices.Clone(s.events[run])
		s.mu.Unlock()
		if slices.Contains(got, e) || time.Now().After(deadline) {
			return slices.Contains(got, e), got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}
