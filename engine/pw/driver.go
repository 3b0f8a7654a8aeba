package pw

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// DriverVersion is the Playwright driver that playwright-go v0.5200 speaks
// to. The driver is the npm package playwright-core at exactly this version.
const DriverVersion = "1.52.0"

// EnvDriverPath is playwright-go's own variable for the driver directory.
const EnvDriverPath = "PLAYWRIGHT_DRIVER_PATH"

// envNodePath is playwright-go's variable for the node binary; when set, the
// driver directory needs no node of its own.
const envNodePath = "PLAYWRIGHT_NODEJS_PATH"

// driverHelp says how to install the driver; every driver error ends with it.
const driverHelp = "install it with `make pwdriver` (runs `npm install playwright-core@" + DriverVersion +
	"` and lays it out as DIR/package plus DIR/node, a link to node >= 18), then point " +
	EnvDriverPath + " at DIR; playwright.Install is never used because its CDN may be unreachable"

// Driver is a Playwright driver laid out as playwright-go expects.
type Driver struct {
	Dir  string // holds package/cli.js
	Node string // the node binary that runs it
}

// FindDriver locates the driver: dir when given, else $PLAYWRIGHT_DRIVER_PATH,
// else the candidates in order (typically ./.cache/pwdriver next to the
// binary and playwright-go's default cache directory). It checks the
// version, so a stale driver fails here and not in the middle of a session.
func FindDriver(dir string, candidates ...string) (Driver, error) {
	var tried []string
	switch {
	case dir != "":
		tried = []string{dir}
	case os.Getenv(EnvDriverPath) != "":
		tried = []string{os.Getenv(EnvDriverPath)}
	default:
		tried = candidates
		if cache, err := os.UserCacheDir(); err == nil {
			tried = append(tried, filepath.Join(cache, "ms-playwright-go", DriverVersion))
		}
	}
	var errs []error
	for _, d := range tried {
		drv, err := checkDriver(d)
		if err == nil {
			return drv, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no driver directory to look in"))
	}
	return Driver{}, fmt.Errorf("playwright driver %s not found (%w): %s", DriverVersion, errors.Join(errs...), driverHelp)
}

func checkDriver(dir string) (Driver, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Driver{}, err
	}
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(abs, "package", "package.json"))
	if err != nil {
		return Driver{}, fmt.Errorf("%s: no package/package.json", abs)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return Driver{}, fmt.Errorf("%s/package/package.json: %w", abs, err)
	}
	if pkg.Version != DriverVersion {
		return Driver{}, fmt.Errorf("%s holds playwright-core %s, want %s", abs, pkg.Version, DriverVersion)
	}
	if _, err := os.Stat(filepath.Join(abs, "package", "cli.js")); err != nil {
		return Driver{}, fmt.Errorf("%s: no package/cli.js", abs)
	}
	node := os.Getenv(envNodePath)
	if node == "" {
		node = filepath.Join(abs, "node")
	}
	if _, err := exec.LookPath(node); err != nil {
		return Driver{}, fmt.Errorf("%s: no node binary (want %s, or set %s): %w", abs, filepath.Join(abs, "node"), envNodePath, err)
	}
	return Driver{Dir: abs, Node: node}, nil
}
