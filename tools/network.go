package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Network is the opt-in capability group of request routing, network
// emulation and the request log.
const Network Group = "network"

// RouteOut is the result of block_resource and mock_response.
type RouteOut struct {
	Message string `json:"message"`
	Routes  int    `json:"routes" jsonschema:"Routes now active in the session"`
	SessionMeta
}

// BlockIn is the input of block_resource.
type BlockIn struct {
	SessionArg
	ResourceType string `json:"resourceType,omitempty" jsonschema:"Block every request of this type: image, script, stylesheet, font, media, xhr (also fetch), document, other, ..."`
	URLPattern   string `json:"urlPattern,omitempty" jsonschema:"Glob over the whole URL: * matches anything, e.g. */api/* or https://cdn.example.com/*" size:"65536"`
}

func (in BlockIn) validate() error {
	return engine.Route{Action: engine.RouteBlock, URLPattern: in.URLPattern, ResourceType: in.ResourceType}.Validate()
}

func blockResource(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "block_resource",
		"Fail matching requests (net::ERR_BLOCKED_BY_CLIENT) by resource type and/or URL pattern, until unroute. The newest matching route wins.", local,
		func(ctx context.Context, s engine.Session, in BlockIn) (RouteOut, error) {
			n, err := s.AddRoute(ctx, engine.Route{Action: engine.RouteBlock, URLPattern: in.URLPattern, ResourceType: in.ResourceType})
			return RouteOut{Message: "Blocking " + describeRoute(in.ResourceType, in.URLPattern) + ".", Routes: n}, err
		}))
}

func describeRoute(typ, pattern string) string {
	var parts []string
	if typ != "" {
		parts = append(parts, typ+" requests")
	} else {
		parts = append(parts, "requests")
	}
	if pattern != "" {
		parts = append(parts, "matching "+pattern)
	}
	return strings.Join(parts, " ")
}

// MockIn is the input of mock_response.
type MockIn struct {
	SessionArg
	URLPattern string            `json:"urlPattern" jsonschema:"Glob over the whole URL: * matches anything, e.g. */api/* or https://cdn.example.com/*" size:"65536"`
	Status     int               `json:"status,omitempty" jsonschema:"Default 200" range:"0,599"`
	Headers    map[string]string `json:"headers,omitempty" jsonschema:"Response headers; content-type defaults to application/json for a JSON body, else text/plain"`
	Body       string            `json:"body,omitempty" size:"1048576"`
}

func (MockIn) aliases() map[string]string { return map[string]string{"url": "urlPattern"} }

// fixArgs spreads a response object {status, headers, body} into the
// arguments; a body that is not a string is sent as its JSON.
func (MockIn) fixArgs(args map[string]any) error {
	r, ok := args["response"]
	if !ok {
		return nil
	}
	delete(args, "response")
	obj, ok := r.(map[string]any)
	if !ok {
		return invalid("response", "response must be an object {status, headers, body}")
	}
	for k, v := range obj {
		switch k {
		case "status", "headers":
		case "body":
			if _, isString := v.(string); !isString && v != nil {
				b, err := json.Marshal(v)
				if err != nil {
					return invalid("response", "response.body cannot be encoded: %v", err)
				}
				v = string(b)
			}
		default:
			return invalid("response", "response takes status, headers and body, not %q", clip(k))
		}
		if _, both := args[k]; both {
			return invalid(k, "give %s or response.%s, not both", k, k)
		}
		args[k] = v
	}
	return nil
}

func (in MockIn) route() engine.Route {
	return engine.Route{Action: engine.RouteMock, URLPattern: in.URLPattern, Status: in.Status, Headers: in.Headers, Body: in.Body}
}

func (in MockIn) validate() error {
	if in.URLPattern == "" {
		return invalid("urlPattern", "urlPattern must not be empty")
	}
	return in.route().Validate()
}

func mockResponse(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "mock_response",
		"Answer matching requests with this response instead of the network, until unroute. The newest matching route wins.", local,
		func(ctx context.Context, s engine.Session, in MockIn) (RouteOut, error) {
			n, err := s.AddRoute(ctx, in.route())
			status := in.Status
			if status == 0 {
				status = 200
			}
			return RouteOut{Message: fmt.Sprintf("Answering requests matching %s with status %d.", in.URLPattern, status), Routes: n}, err
		}))
}

// UnrouteIn is the input of unroute.
type UnrouteIn struct {
	SessionArg
	URLPattern string `json:"urlPattern,omitempty" jsonschema:"Remove the routes with exactly this pattern; omit to remove all" size:"65536"`
}

// UnrouteOut is the result of unroute.
type UnrouteOut struct {
	Removed   int `json:"removed"`
	Remaining int `json:"remaining"`
	SessionMeta
}

func unroute(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "unroute", "Remove block_resource and mock_response routes; requests go to the network again.",
		hints{idempotent: true},
		func(ctx context.Context, s engine.Session, in UnrouteIn) (UnrouteOut, error) {
			removed, remaining, err := s.RemoveRoutes(ctx, in.URLPattern)
			return UnrouteOut{Removed: removed, Remaining: remaining}, err
		}))
}

// OfflineIn is the input of set_offline.
type OfflineIn struct {
	SessionArg
	Offline bool `json:"offline"`
}

// OfflineOut is the result of set_offline.
type OfflineOut struct {
	Offline bool `json:"offline"`
	SessionMeta
}

func setOffline(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "set_offline", "Emulate a lost network connection (requests fail, navigator.onLine is false), or restore it.",
		hints{idempotent: true},
		func(ctx context.Context, s engine.Session, in OfflineIn) (OfflineOut, error) {
			return OfflineOut{Offline: in.Offline}, s.SetOffline(ctx, in.Offline)
		}))
}

// throttlePresets are Chrome DevTools' presets.
var throttlePresets = map[string]engine.Throttling{
	"none":   {},
	"slow3g": {DownloadKbps: 400, UploadKbps: 400, LatencyMs: 2000},
	"fast3g": {DownloadKbps: 1440, UploadKbps: 675, LatencyMs: 563},
	"slow4g": {DownloadKbps: 1440, UploadKbps: 675, LatencyMs: 150},
}

// ThrottleIn is the input of set_throttling.
type ThrottleIn struct {
	SessionArg
	Preset       string  `json:"preset,omitempty" jsonschema:"Instead of the numbers; none turns throttling off,enum=slow3g,enum=fast3g,enum=slow4g,enum=none"`
	DownloadKbps float64 `json:"downloadKbps,omitempty" jsonschema:"Kilobits/s; 0 is unlimited" range:"0,10000000"`
	UploadKbps   float64 `json:"uploadKbps,omitempty" jsonschema:"Kilobits/s; 0 is unlimited" range:"0,10000000"`
	LatencyMs    float64 `json:"latencyMs,omitempty" jsonschema:"Added to every request" range:"0,60000"`
}

// fixArgs takes the seed's names: downloadSpeed and uploadSpeed in bytes
// per second (as Chrome's DevTools count throughput), latency in ms.
func (ThrottleIn) fixArgs(args map[string]any) error {
	for alias, canon := range map[string]string{"downloadSpeed": "downloadKbps", "uploadSpeed": "uploadKbps", "latency": "latencyMs"} {
		v, ok := args[alias]
		if !ok {
			continue
		}
		delete(args, alias)
		if _, both := args[canon]; both {
			return invalid(canon, "give %s or %s, not both", canon, alias)
		}
		n, ok := number(v)
		if !ok {
			return invalid(alias, "parameter %q must be a number", alias)
		}
		if alias != "latency" {
			n = n * 8 / 1000 // bytes/s to kilobits/s
		}
		args[canon] = n
	}
	return nil
}

func (in ThrottleIn) numbers() engine.Throttling {
	return engine.Throttling{DownloadKbps: in.DownloadKbps, UploadKbps: in.UploadKbps, LatencyMs: in.LatencyMs}
}

func (in ThrottleIn) validate() error {
	if in.Preset != "" {
		if !in.numbers().Off() {
			return invalid("preset", "give preset or the numbers, not both")
		}
		if _, ok := throttlePresets[in.Preset]; !ok {
			return oneOf("preset", in.Preset, slices.Sorted(maps.Keys(throttlePresets))...)
		}
	}
	return nil
}

// ThrottleOut is the result of set_throttling.
type ThrottleOut struct {
	DownloadKbps float64 `json:"downloadKbps"`
	UploadKbps   float64 `json:"uploadKbps"`
	LatencyMs    float64 `json:"latencyMs"`
	Throttled    bool    `json:"throttled"`
	SessionMeta
}

func setThrottling(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "set_throttling",
		"Limit the session's bandwidth and add latency, by preset or numbers; all zero or preset none turns it off.",
		hints{idempotent: true},
		func(ctx context.Context, s engine.Session, in ThrottleIn) (ThrottleOut, error) {
			th := in.numbers()
			if in.Preset != "" {
				th = throttlePresets[in.Preset]
			}
			err := s.SetThrottling(ctx, th)
			return ThrottleOut{DownloadKbps: th.DownloadKbps, UploadKbps: th.UploadKbps, LatencyMs: th.LatencyMs, Throttled: !th.Off()}, err
		}))
}

// RequestLogIn is the input of get_request_log.
type RequestLogIn struct {
	SessionArg
	Filter       string `json:"filter,omitempty" jsonschema:"Only URLs containing this text" size:"65536"`
	ResourceType string `json:"resourceType,omitempty" jsonschema:"image, script, stylesheet, font, media, xhr, fetch, document, other, ..."`
	Failed       bool   `json:"failed,omitempty" jsonschema:"Only failed or blocked requests"`
	Limit        int    `json:"limit,omitempty" jsonschema:"Newest N (default 50)" range:"0,1000"`
}

func (in RequestLogIn) validate() error {
	if in.ResourceType != "" && !slices.Contains(engine.ResourceTypes, in.ResourceType) {
		return oneOf("resourceType", in.ResourceType, engine.ResourceTypes...)
	}
	return nil
}

// RequestLogOut is the result of get_request_log.
type RequestLogOut struct {
	engine.RequestLog
	SessionMeta
}

func getRequestLog(d *Deps) Tool {
	return inGroup(Network, sessionTool(d, "get_request_log",
		"The session's recent requests, oldest first: method, url, status, resource type, timing, and the error of failed or blocked ones.", readOnly,
		func(ctx context.Context, s engine.Session, in RequestLogIn) (RequestLogOut, error) {
			limit := limitOr(in.Limit, 50)
			l, err := s.RequestLog(ctx, engine.RequestLogQuery{Filter: in.Filter, ResourceType: in.ResourceType, FailedOnly: in.Failed, Limit: limit})
			return RequestLogOut{RequestLog: l}, err
		}))
}
