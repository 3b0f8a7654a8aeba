package tools_test

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// BenchmarkScale holds 1 and then 50 concurrent sessions in one server and
// reports the p50/p95 latency of a click while every session clicks at once,
// and the memory (PSS of this process and its browser) per extra session.
//
//	go test -run '^$' -bench Scale -benchtime 5x ./tools/
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			e := newEnv(b, sessions.Config{MaxSessions: n})
			ids := make([]string, n)
			ids[0] = e.open("/form.html")
			// Let the renderers' memory settle before reading it: there is
			// no event for that, so a fixed pause it is (here and below).
			time.Sleep(time.Second)
			first := testenv.TreePSS(os.Getpid())
			var wg sync.WaitGroup
			for i := range ids[1:] {
				wg.Go(func() { ids[i+1] = e.open("/form.html") })
			}
			wg.Wait()
			time.Sleep(time.Second) // memory settling, as above
			pss := testenv.TreePSS(os.Getpid())
			var mu sync.Mutex
			var lat []float64
			for b.Loop() {
				for _, id := range ids {
					wg.Go(func() {
						start := time.Now()
						e.ok("click", map[string]any{"sessionId": id, "selector": "#count"})
						mu.Lock()
						lat = append(lat, float64(time.Since(start).Microseconds())/1000)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			slices.Sort(lat)
			b.ReportMetric(lat[len(lat)/2], "p50-ms")
			b.ReportMetric(lat[len(lat)*95/100], "p95-ms")
			b.ReportMetric(float64(pss)/1024, "PSS-MiB")
			if n > 1 {
				b.ReportMetric(float64(pss-first)/1024/float64(n-1), "PSS-MiB/extra-session")
			}
		})
	}
}
