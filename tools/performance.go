package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// PerformanceIn is the input of performance.
type PerformanceIn struct {
	SessionArg
	URL     string `json:"url,omitempty" size:"65536" jsonschema:"Load this URL first (as navigate); default: read the current page"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

// PerformanceOut is the result of performance: the Core Web Vitals and
// the two loading metrics under them, each with Google's verdict.
type PerformanceOut struct {
	URL  string `json:"url"`
	LCP  Vital  `json:"lcp"`
	CLS  Vital  `json:"cls"`
	INP  Vital  `json:"inp"`
	TTFB Vital  `json:"ttfb"`
	FCP  Vital  `json:"fcp"`
	// Message is the metrics in one paragraph, with the cause of each
	// that is not good.
	Message string `json:"message"`
	SessionMeta
}

// Vital is one metric.
type Vital struct {
	// Value is in ms (CLS: a score); null when the browser does not
	// offer the metric or the page has none yet (Reason says which).
	Value *float64 `json:"value"`
	// Verdict is good, needs-improvement or poor, by Google's thresholds.
	Verdict string `json:"verdict,omitempty" jsonschema:"good, needs-improvement or poor"`
	Reason  string `json:"reason,omitempty" jsonschema:"Why the value is null"`
	// Cause is the one biggest cause of a metric that is not good.
	Cause string `json:"cause,omitempty"`
	// Element is LCP's element, or INP's interaction's target.
	Element *VitalElement `json:"element,omitempty"`
	// Nodes are the nodes of CLS's largest shift.
	Nodes []VitalElement `json:"nodes,omitempty"`
	// Parts break the value down, in ms.
	Parts map[string]float64 `json:"parts,omitempty"`
	// Count is CLS's shifts or INP's interactions.
	Count *int `json:"count,omitempty"`
}

// VitalElement describes an element of the page.
type VitalElement struct {
	Tag      string `json:"tag,omitempty"`
	ID       string `json:"id,omitempty"`
	Class    string `json:"class,omitempty"`
	Text     string `json:"text,omitempty"`
	Src      string `json:"src,omitempty"`
	Selector string `json:"selector,omitempty" jsonschema:"A CSS selector for the element tools"`
	Removed  bool   `json:"removed,omitempty" jsonschema:"The element has left the document"`
}

// The thresholds of the vitals (web.dev): a value up to good is good, up
// to poor needs improvement, above it is poor.
var vitalThresholds = map[string][2]float64{
	"lcp": {2500, 4000}, "cls": {0.1, 0.25}, "inp": {200, 500}, "ttfb": {800, 1800}, "fcp": {1800, 3000},
}

func verdict(metric string, v float64) string {
	th := vitalThresholds[metric]
	switch {
	case v <= th[0]:
		return "good"
	case v <= th[1]:
		return "needs-improvement"
	}
	return "poor"
}

//go:embed js/vitals.js
var vitalsJS string

// pageVitals is what vitals.js answers.
type pageVitals struct {
	URL           string   `json:"url"`
	Browser       string   `json:"browser"`
	ObservedSince *float64 `json:"observedSince"`
	Supported     struct {
		LCP, CLS, INP, Paint bool
	} `json:"supported"`
	TTFB *struct {
		Value float64            `json:"value"`
		Parts map[string]float64 `json:"parts"`
	} `json:"ttfb"`
	FCP *struct {
		Value    float64 `json:"value"`
		Blocking []struct {
			URL   string  `json:"url"`
			Ms    float64 `json:"ms"`
			EndMs float64 `json:"endMs"`
		} `json:"blocking"`
		BlockingKnown bool `json:"blockingKnown"`
	} `json:"fcp"`
	LCP *struct {
		Value   float64            `json:"value"`
		Element *VitalElement      `json:"element"`
		URL     string             `json:"url"`
		Parts   map[string]float64 `json:"parts"`
	} `json:"lcp"`
	CLS *struct {
		Value   float64 `json:"value"`
		Shifts  int     `json:"shifts"`
		Largest *struct {
			Value float64        `json:"value"`
			AtMs  float64        `json:"atMs"`
			Nodes []VitalElement `json:"nodes"`
		} `json:"largest"`
	} `json:"cls"`
	INP *struct {
		Interactions int                `json:"interactions"`
		IDSupported  bool               `json:"idSupported"`
		Value        *float64           `json:"value"`
		Type         string             `json:"type"`
		AtMs         float64            `json:"atMs"`
		Target       *VitalElement      `json:"target"`
		Parts        map[string]float64 `json:"parts"`
	} `json:"inp"`
}

//go:embed js/vitals_settle.js
var vitalsSettleJS string

// After performance loads its url, it waits for settleQuiet without a
// layout shift, LCP candidate or resource, at most settleMax.
const (
	settleQuiet = time.Second
	settleMax   = 5 * time.Second
)

func performance(d *Deps) Tool {
	t := sessionTool(d, "performance", "Core Web Vitals of the page (LCP, CLS, INP, TTFB, FCP) with Google's verdicts and the biggest cause of each poor one; loads url first when given (and waits until it is quiet for 1 s, at most 5 s). INP counts the interactions before the call.", pageAction,
		func(ctx context.Context, s engine.Session, in PerformanceIn) (PerformanceOut, error) {
			if in.URL != "" {
				if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: in.URL, WaitUntil: engine.WaitLoad, Timeout: ms(in.Timeout)}); err != nil {
					return PerformanceOut{}, err
				}
				// What the page does just after its load event (a late
				// banner's shift, a hero image) counts too: wait until it
				// is quiet for a second, at most settleMax.
				if _, err := evalInto[float64](ctx, s, engine.EvalRequest{Function: vitalsSettleJS,
					Args: []any{settleQuiet.Milliseconds(), settleMax.Milliseconds()}}); err != nil {
					return PerformanceOut{}, err
				}
			}
			pv, err := evalInto[pageVitals](ctx, s, engine.EvalRequest{Function: vitalsJS})
			if err != nil {
				return PerformanceOut{}, err
			}
			return pv.vitals(), nil
		})
	return inGroup(Devtools, t)
}

// vitals judges what the page measured.
func (pv pageVitals) vitals() PerformanceOut {
	out := PerformanceOut{URL: pv.URL}
	judge := func(v *Vital, metric string, value float64) {
		v.Value = &value
		v.Verdict = verdict(metric, value)
	}
	if pv.TTFB != nil {
		judge(&out.TTFB, "ttfb", pv.TTFB.Value)
		out.TTFB.Parts = pv.TTFB.Parts
		if out.TTFB.Verdict != "good" {
			k, v := largest(pv.TTFB.Parts)
			out.TTFB.Cause = fmt.Sprintf("%s time, %g ms of the TTFB", k, v)
		}
	} else {
		out.TTFB.Reason = "the page has no navigation timing (it is not a loaded document)"
	}
	switch {
	case pv.FCP != nil:
		judge(&out.FCP, "fcp", pv.FCP.Value)
		if out.FCP.Verdict != "good" {
			switch {
			case len(pv.FCP.Blocking) > 0:
				b := pv.FCP.Blocking[0]
				out.FCP.Cause = fmt.Sprintf("render-blocking resource %s, loaded by %g ms (%g ms to load)", b.URL, b.EndMs, b.Ms)
				for _, o := range pv.FCP.Blocking[1:] {
					out.FCP.Cause += ", then " + o.URL
				}
			case pv.TTFB != nil && pv.TTFB.Value > pv.FCP.Value/2:
				out.FCP.Cause = fmt.Sprintf("the server: TTFB is %g of the %g ms", pv.TTFB.Value, pv.FCP.Value)
			case !pv.FCP.BlockingKnown:
				out.FCP.Cause = "rendering after the first byte; " + pv.Browser + " does not say which resources block rendering"
			default:
				out.FCP.Cause = "rendering after the first byte (no render-blocking resource): scripts or layout on the main thread"
			}
		}
	case !pv.Supported.Paint:
		out.FCP.Reason = pv.Browser + " offers no paint timing entries"
	default:
		out.FCP.Reason = "no first contentful paint yet: the page painted no text or image"
	}
	switch {
	case pv.LCP != nil:
		judge(&out.LCP, "lcp", pv.LCP.Value)
		out.LCP.Element, out.LCP.Parts = pv.LCP.Element, pv.LCP.Parts
		if out.LCP.Verdict != "good" {
			k, v := largest(pv.LCP.Parts)
			out.LCP.Cause = fmt.Sprintf("%s, %g ms", map[string]string{"ttfb": "the server's first byte (TTFB)", "resourceLoadDelay": "the delay before the LCP resource started loading",
				"resourceLoadDuration": "loading the LCP resource", "elementRenderDelay": "rendering the element after its resource"}[k], v)
			if pv.LCP.URL != "" && k != "ttfb" {
				out.LCP.Cause += " (" + pv.LCP.URL + ")"
			}
		}
	case !pv.Supported.LCP:
		out.LCP.Reason = pv.Browser + " offers no largest-contentful-paint entries"
	default:
		out.LCP.Reason = "no LCP entry yet: nothing large painted, or the page is hidden"
	}
	switch {
	case pv.CLS != nil:
		judge(&out.CLS, "cls", pv.CLS.Value)
		out.CLS.Count = &pv.CLS.Shifts
		if l := pv.CLS.Largest; l != nil {
			out.CLS.Nodes = l.Nodes
			if out.CLS.Verdict != "good" {
				out.CLS.Cause = fmt.Sprintf("the largest shift, %g at %g ms, moved %s", l.Value, l.AtMs, nodeNames(l.Nodes))
			}
		}
	case !pv.Supported.CLS:
		out.CLS.Reason = pv.Browser + " offers no layout-shift entries"
	}
	switch {
	case pv.INP == nil:
		out.INP.Reason = pv.Browser + " offers no Event Timing entries"
	case !pv.INP.IDSupported:
		out.INP.Reason = pv.Browser + " gives its Event Timing entries no interactionId"
	case pv.INP.Value == nil:
		out.INP.Reason = "no interaction yet: INP needs a click, tap or key press on the page"
		if pv.ObservedSince == nil {
			break
		}
		out.INP.Reason += "; interactions under 104 ms before the first performance call on a page are not seen"
	default:
		judge(&out.INP, "inp", *pv.INP.Value)
		out.INP.Element, out.INP.Parts, out.INP.Count = pv.INP.Target, pv.INP.Parts, &pv.INP.Interactions
		if out.INP.Verdict != "good" {
			k, v := largest(pv.INP.Parts)
			out.INP.Cause = fmt.Sprintf("the %s on %s: %s, %g ms", pv.INP.Type, nodeNames([]VitalElement{deref(pv.INP.Target)}),
				map[string]string{"inputDelay": "input delay (the main thread was busy)", "processing": "processing (its event handlers)", "presentation": "presentation (rendering the next frame)"}[k], v)
		}
	}
	out.Message = out.paragraph()
	return out
}

func deref(e *VitalElement) VitalElement {
	if e == nil {
		return VitalElement{}
	}
	return *e
}

// largest returns the part with the largest value; ties go to the first
// key in order.
func largest(parts map[string]float64) (string, float64) {
	var k string
	v := -1.0
	for _, name := range []string{"ttfb", "resourceLoadDelay", "resourceLoadDuration", "elementRenderDelay", "inputDelay", "processing", "presentation", "redirect", "dns", "connect", "server"} {
		if p, ok := parts[name]; ok && p > v {
			k, v = name, p
		}
	}
	return k, v
}

// nodeNames names nodes by their selectors, or their tags.
func nodeNames(nodes []VitalElement) string {
	var names []string
	for _, n := range nodes {
		switch {
		case n.Selector != "":
			names = append(names, n.Selector)
		case n.Tag != "":
			names = append(names, n.Tag)
		}
	}
	if len(names) == 0 {
		return "nodes the browser does not name"
	}
	return strings.Join(names, ", ")
}

// paragraph is the metrics in one paragraph.
func (o PerformanceOut) paragraph() string {
	var b strings.Builder
	for _, m := range []struct {
		name, unit string
		v          Vital
	}{{"LCP", " ms", o.LCP}, {"CLS", "", o.CLS}, {"INP", " ms", o.INP}, {"TTFB", " ms", o.TTFB}, {"FCP", " ms", o.FCP}} {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		if m.v.Value == nil {
			fmt.Fprintf(&b, "%s: none (%s).", m.name, m.v.Reason)
			continue
		}
		fmt.Fprintf(&b, "%s %g%s: %s", m.name, *m.v.Value, m.unit, m.v.Verdict)
		if m.name == "LCP" && m.v.Element != nil {
			fmt.Fprintf(&b, ", element %s", nodeNames([]VitalElement{*m.v.Element}))
		}
		if m.v.Cause != "" {
			fmt.Fprintf(&b, "; cause: %s", m.v.Cause)
		}
		b.WriteString(".")
	}
	return b.String()
}
