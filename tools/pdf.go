package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// PDF is the opt-in capability group of print to PDF.
const PDF Group = "pdf"

// MaxPDFBytes caps a PDF returned to the agent.
const MaxPDFBytes = 10 << 20

// PDFIn is the input of pdf.
type PDFIn struct {
	SessionArg
	Format          string `json:"format,omitempty" jsonschema:"Paper size; default Letter,enum=Letter,enum=Legal,enum=Tabloid,enum=Ledger,enum=A0,enum=A1,enum=A2,enum=A3,enum=A4,enum=A5,enum=A6"`
	Landscape       bool   `json:"landscape,omitempty"`
	PrintBackground bool   `json:"printBackground,omitempty"`
	PageRanges      string `json:"pageRanges,omitempty" jsonschema:"e.g. 1-3, 5; default all"`
}

func (in PDFIn) validate() error {
	return oneOf("format", in.Format, slices.Sorted(maps.Keys(engine.PaperFormats))...)
}

// PDFOut describes the returned PDF.
type PDFOut struct {
	MimeType string `json:"mimeType"`
	Bytes    int    `json:"bytes"`
	Pages    int    `json:"pages,omitempty"`
	SessionMeta
}

func pdf(d *Deps) Tool {
	def := define[PDFIn, PDFOut]("pdf", "Print the page to PDF (Chromium, headless); returned as an embedded application/pdf resource.", readOnly)
	return inGroup(PDF, Tool{Def: def, in: reflect.TypeFor[PDFIn](), session: true, Handler: onSession(d, "pdf", def,
		func(ctx context.Context, s engine.Session, in PDFIn) ([]byte, error) {
			b, err := s.PDF(ctx, engine.PDFRequest{Format: in.Format, Landscape: in.Landscape, PrintBackground: in.PrintBackground, PageRanges: in.PageRanges})
			if err == nil && len(b) > MaxPDFBytes {
				return nil, engine.Errorf(engine.InvalidParameters, "the PDF is %d bytes, over the %d-byte cap", len(b), MaxPDFBytes).
					With("field", "pageRanges").Suggest("Print fewer pages with pageRanges.")
			}
			return b, err
		},
		func(b []byte, info engine.SessionInfo) *mcp.CallToolResult {
			out := PDFOut{MimeType: "application/pdf", Bytes: len(b), Pages: countPages(b)}
			out.setMeta(info)
			r := result(out)
			r.Content = append(r.Content, mcp.NewEmbeddedResource(mcp.BlobResourceContents{
				URI:      fmt.Sprintf("browsermcp://sessions/%s/page.pdf", info.ID),
				MIMEType: "application/pdf",
				Blob:     base64.StdEncoding.EncodeToString(b),
			}))
			return r
		})})
}

// pageObject matches a page object's dictionary entry, but not /Pages.
var pageObject = regexp.MustCompile(`/Type\s*/Page[^s]`)

// countPages counts page objects; Chromium writes them uncompressed. It
// returns 0 when it finds none, and the field is then left out.
func countPages(b []byte) int {
	if !bytes.HasPrefix(b, []byte("%PDF")) {
		return 0
	}
	return len(pageObject.FindAllIndex(b, -1))
}
