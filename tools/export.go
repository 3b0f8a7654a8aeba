package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
)

// ExportTestIn is the input of export_test.
type ExportTestIn struct {
	SessionArg
	Language string `json:"language,omitempty" jsonschema:"Default typescript,enum=typescript,enum=python"`
	Path     string `json:"path,omitempty" jsonschema:"File in the output directory; default tests/<session>.spec.ts or tests/test_<session>.py" size:"4096"`
}

func (in ExportTestIn) validate() error {
	return oneOf("language", in.Language, "typescript", "python")
}

// ExportTestOut is the result of export_test.
type ExportTestOut struct {
	Path     string `json:"path" jsonschema:"The test file written"`
	Steps    int    `json:"steps" jsonschema:"Recorded steps in it, from the first navigation"`
	Language string `json:"language"`
	Code     string `json:"code" jsonschema:"The file's content"`
	SessionMeta
}

// fileName makes a session's id a file name's stem.
var notFileName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func exportTest(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "export_test",
		"Write the session's recorded actions and verify_* assertions as a Playwright test (@playwright/test or pytest-playwright).", savesFile,
		func(ctx context.Context, s engine.Session, in ExportTestIn) (ExportTestOut, error) {
			id := engine.SessionIDFrom(ctx)
			lang := codegen.TypeScript
			if in.Language == "python" {
				lang = codegen.Python
			}
			var steps []codegen.Step
			dropped := 0
			if d.stepLog != nil {
				steps, dropped = d.stepLog.steps(id)
			}
			stem := notFileName.ReplaceAllString(id, "_")
			rel := filepath.Join("tests", stem+".spec.ts")
			if lang == codegen.Python {
				rel = filepath.Join("tests", "test_"+stem+".py")
			}
			if in.Path != "" {
				rel = in.Path
			}
			// The directory of a new file inside the output directory is
			// made first; resolve then checks the path as save_state's.
			if p := filepath.Join(d.files.out, rel); !filepath.IsAbs(rel) && filepath.IsLocal(rel) && d.files.enabled {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					return ExportTestOut{}, engine.FileError(engine.InvalidParameters, err, "cannot create "+filepath.Dir(p)).With("field", "path")
				}
			}
			path, err := d.files.resolve(ctx, "path", rel, true)
			if err != nil {
				return ExportTestOut{}, err
			}
			// Uploads name their files relative to the test's directory.
			dir := filepath.Dir(path)
			for i := range steps {
				if steps[i].Action != codegen.Upload {
					continue
				}
				files := make([]string, len(steps[i].Files))
				for j, f := range steps[i].Files {
					r, err := filepath.Rel(dir, filepath.Join(d.files.out, f))
					if err != nil {
						r = filepath.Join(d.files.out, f)
					}
					files[j] = filepath.ToSlash(r)
				}
				steps[i].Files = files
			}
			run := "npx playwright test " + filepath.Base(path)
			if lang == codegen.Python {
				run = "pytest " + filepath.Base(path)
			}
			header := fmt.Sprintf("Recorded by browsermcp from session %s on %s.\nRun: %s", id, time.Now().UTC().Format("2006-01-02"), run)
			if dropped > 0 {
				header += fmt.Sprintf("\nThe recording kept its first %d steps; %d later ones are missing.", maxSteps, dropped)
			}
			code, n, ok := codegen.File(lang, "recorded session "+id, header, steps)
			if !ok {
				return ExportTestOut{}, engine.Errorf(engine.InvalidParameters, "nothing to export: session %s has no navigation recorded (the test replays from its first navigate, recorded with --caps testing)", id).
					With("reason", "nothing_recorded").Suggest("navigate, act and verify_* in this session, then call export_test")
			}
			if err := os.WriteFile(path, []byte(code), 0o600); err != nil {
				return ExportTestOut{}, engine.FileError(engine.InvalidParameters, err, "cannot write "+path).With("field", "path")
			}
			return ExportTestOut{Path: path, Steps: n, Language: string(lang), Code: code}, nil
		}))
}
