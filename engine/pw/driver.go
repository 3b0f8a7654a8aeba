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

// InstallCommand is the command that assembles the driver where the server
// looks for it (InstalledDriverDir); every driver error names it.
const InstallCommand = "browsermcp install driver"

// driverHelp says how to install the driver; every driver error ends with it.
const driverHelp = "install it with `" + InstallCommand + "` (it runs `npm install playwright-core@" + DriverVersion +
	"`, needs node >= 18 and npm, and lays the driver out in the user's cache directory, where the server looks), " +
	"or point " + EnvDriverPath + " at a DIR laid out as DIR/package plus DIR/node, a link to node (in a checkout, `make pwdriver` does this); " +
	"playwright.Install is never used because its CDN may be unreachable"

// InstalledDriverDir is where `browsermcp install driver` puts the driver
// and where the server looks for it after $PLAYWRIGHT_DRIVER_PATH: a
// directory per version under browsermcp in the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux).
func InstalledDriverDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory for the Playwright driver: %w", err)
	}
	return filepath.Join(cache, "browsermcp", "pwdriver-"+DriverVersion), nil
}

// Driver is a Playwright driver laid out as playwright-go expects.
type Driver struct {
	Dir  string // holds package/cli.js
	Node string // the node binary that runs it
}

// FindDriver locates the driver: dir when given, else $PLAYWRIGHT_DRIVER_PATH,
// else the candidates in order (typically InstalledDriverDir and
// ./.cache/pwdriver next to the binary), then playwright-go's default cache
// directory. It checks the
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
