package testenv

import (
	"testing"
	"time"
)

// WaitTimeout bounds Eventually. It is there only to stop a test that would
// otherwise hang, not to say how fast anything must be, so it is long: on a
// loaded machine what usually takes milliseconds can take many seconds.
const WaitTimeout = 2 * time.Minute

// Eventually waits until cond reports true, polling it with a short backoff,
// and fails the test if it has not by WaitTimeout, or shortly before the
// test binary's own deadline if that comes first. what names what the test
// waits for ("the popup to become a tab"), for the failure message.
//
// cond may return an error to say why it is not true yet: polling goes on,
// and the failure message shows the last error (an error that comes with
// true is ignored). cond runs on the test's
// goroutine, so it may call tb.Fatal to give up at once.
func Eventually(tb testing.TB, what string, cond func() (bool, error)) {
	tb.Helper()
	start := time.Now()
	deadline := start.Add(WaitTimeout)
	if d, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		// Fail with a message before the binary panics with a stack dump.
		if end, ok := d.Deadline(); ok {
			if soon := start.Add(time.Until(end) * 9 / 10); soon.Before(deadline) {
				deadline = soon
			}
		}
	}
	delay := 10 * time.Millisecond
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if err == nil {
				tb.Fatalf("waited %v for %s, in vain", time.Since(start).Round(time.Millisecond), what)
			}
			tb.Fatalf("waited %v for %s, in vain: %v", time.Since(start).Round(time.Millisecond), what, err)
		}
		time.Sleep(delay)
		delay = min(2*delay, 250*time.Millisecond)
	}
}
