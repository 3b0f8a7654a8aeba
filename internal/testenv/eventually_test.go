package testenv

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeTB records a failure instead of failing, and has a near deadline so
// that Eventually gives up quickly.
type fakeTB struct {
	testing.TB
	deadline time.Time
	failed   string
}

func (f *fakeTB) Helper()                     {}
func (f *fakeTB) Deadline() (time.Time, bool) { return f.deadline, true }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls Eventually on a fake test in a goroutine of its own, as the
// testing package runs a test, so that Fatalf can end it.
func run(cond func() (bool, error)) string {
	f := &fakeTB{deadline: time.Now().Add(200 * time.Millisecond)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(f, "the thing", cond)
	}()
	<-done
	return f.failed
}

func TestEventually(t *testing.T) {
	n := 0
	if msg := run(func() (bool, error) { n++; return n == 3, nil }); msg != "" || n != 3 {
		t.Errorf("a condition true on the third call: %d calls, failure %q", n, msg)
	}
	if msg := run(func() (bool, error) { return false, nil }); !strings.Contains(msg, "for the thing, in vain") {
		t.Errorf("a condition never true: failure %q", msg)
	}
	if msg := run(func() (bool, error) { return false, errors.New("2 tabs") }); !strings.HasSuffix(msg, "for the thing, in vain: 2 tabs") {
		t.Errorf("a condition never true with an error: failure %q", msg)
	}
}
