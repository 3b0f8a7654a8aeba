package cdp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestRoutesUnderDomainPolicy checks that routes and the domain policy
// share the page's one Fetch interception: the policy still refuses what it
// refuses while routes exist and after the last one is removed, and routes
// answer what it allows.
func TestRoutesUnderDomainPolicy(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	pol, err := engine.NewPolicy([]string{"127.0.0.1"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s := newPolicySession(t, pol)
	other := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	if _, err := navigate(t, s, site.URL+"/net.html"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	get := func(url string) map[string]any {
		t.Helper()
		raw, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `await get("` + url + `")`})
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		json.Unmarshal(raw, &out)
		return out
	}
	if _, err := s.AddRoute(ctx, engine.Route{Action: engine.RouteMock, URLPattern: "*/api/data*", Body: "mocked"}); err != nil {
		t.Fatal(err)
	}
	if got := get("/api/data?allowed"); got["body"] != "mocked" {
		t.Fatalf("a route under the policy: %v", got)
	}
	if got := get(other + "/api/data?refused"); got["error"] == nil {
		t.Fatalf("the policy let a refused host through a route: %v", got)
	}
	if _, _, err := s.RemoveRoutes(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := get(other + "/api/data?refused-after-unroute"); got["error"] == nil {
		t.Fatalf("removing the last route switched the policy off: %v", got)
	}
	if got := get("/api/data?real"); !strings.Contains(got["body"].(string), "server") {
		t.Fatalf("after unroute: %v", got)
	}
	log, err := s.RequestLog(ctx, engine.RequestLogQuery{Filter: "refused"})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Requests) != 2 || log.Requests[0].Route != "policy" || log.Requests[1].Route != "policy" {
		t.Fatalf("refused requests in the log: %+v", log.Requests)
	}
}
