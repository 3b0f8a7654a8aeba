package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"net/http"
)

// Handler checks the JSON-RPC message of every POST to next: a body over
// g.MaxMessage is refused with 413, a message Inspect refuses is answered
// with its error (HTTP 400 for a malformed message, as mcp-go answers a
// parse error; 200 for a request refused by Check), and the rest reaches
// next with the body it read.
func Handler(g Guard, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.max()))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				write(w, http.StatusRequestEntityTooLarge, g.TooLarge(body))
				return
			}
			http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if resp, code := g.Inspect(r.Context(), body); code != 0 {
			if resp == nil {
				w.WriteHeader(http.StatusAccepted) // a notification
				return
			}
			status := http.StatusBadRequest // a malformed message
			if code > InvalidRequest {
				// A valid request, answered with an error (-32002).
				status = http.StatusOK
			}
			write(w, status, resp)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

func write(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
