package kit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/seed4af8c199/browsermcp/engine"
)

// WriteTrace copies a Chrome trace in JSON, {"traceEvents": [...], ...} as
// the browser streams it, from r into the file path, as a valid JSON
// object of at most max bytes: the events that would pass max are left
// out, and cut says so. It writes path.part first and renames it into
// place once whole, so that path is never half-written; on an error
// nothing is left. An error is an *engine.Error: the reader's own, or
// BROWSER_ERROR for one of the file.
func WriteTrace(path string, r io.Reader, max int64) (int64, bool, error) {
	n, cut, err := writeTrace(path, r, max)
	var e *engine.Error
	if err != nil && !errors.As(err, &e) {
		err = engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not write the trace: %v", err))
	}
	return n, cut, err
}

func writeTrace(path string, r io.Reader, max int64) (n int64, cut bool, err error) {
	part := path + ".part"
	f, err := os.OpenFile(part, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, false, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(part, path)
		}
		if err != nil {
			_ = os.Remove(part)
			n, cut = 0, false
		}
	}()
	w := &countWriter{w: bufio.NewWriterSize(f, 1<<16)}
	cut, err = copyTrace(w, json.NewDecoder(r), max)
	if err == nil {
		err = w.w.(*bufio.Writer).Flush()
	}
	return w.n, cut, err
}

// traceClose is what closes a cut trace: the events' array and the object.
const traceClose = len("]}")

// copyTrace re-encodes the trace object of dec into w, event by event,
// keeping it under max bytes.
func copyTrace(w *countWriter, dec *json.Decoder, max int64) (cut bool, err error) {
	if err := expectDelim(dec, '{'); err != nil {
		return false, err
	}
	w.WriteString("{")
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		key, _ := tok.(string)
		k, _ := json.Marshal(key)
		sep := ","
		if first {
			sep = ""
		}
		if key != "traceEvents" {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return false, err
			}
			if cut || w.n+int64(len(sep)+len(k)+1+len(v)+1) > max {
				continue // metadata that does not fit is left out
			}
			w.WriteString(sep)
			w.Write(k)
			w.WriteString(":")
			w.Write(v)
			first = false
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return false, err
		}
		w.WriteString(sep)
		w.Write(k)
		w.WriteString(":[")
		first = false
		events := 0
		for dec.More() {
			var ev json.RawMessage
			if err := dec.Decode(&ev); err != nil {
				return false, err
			}
			if w.n+int64(len(ev)+1+traceClose) > max {
				// The rest is left unread: the browser's stream is
				// closed after this.
				w.WriteString("]}")
				return true, w.err
			}
			if events > 0 {
				w.WriteString(",\n")
			}
			w.Write(bytes.TrimSpace(ev))
			events++
		}
		if err := expectDelim(dec, ']'); err != nil {
			return false, err
		}
		w.WriteString("]")
	}
	if err := expectDelim(dec, '}'); err != nil {
		return false, err
	}
	w.WriteString("}")
	return false, w.err
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the trace ended early")
		}
		return err
	}
	if tok != d {
		return fmt.Errorf("the trace is not a JSON trace object: found %v where %v belongs", tok, d)
	}
	return nil
}

// countWriter counts what it writes and keeps its first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

func (c *countWriter) WriteString(s string) { c.Write([]byte(s)) }
