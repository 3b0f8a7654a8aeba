package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// The tests in this file drive the command line as a shell does: each
// command is a new process of the built binary, and the processes share
// the sessions of the daemon the first one started.

// cliShell runs commands with one runtime directory, so one daemon.
type cliShell struct {
	t   *testing.T
	bin string
	rt  string
	env []string
}

// cliCommandTimeout bounds each command; the tools bound their own work
// more tightly.
const cliCommandTimeout = 2 * time.Minute

// newCLIShell gives the test its own runtime directory, and stops the
// daemon it started, with its browser, when the test ends.
func newCLIShell(t *testing.T) *cliShell {
	t.Helper()
	s := &cliShell{t: t, bin: buildBinary(t), rt: t.TempDir()}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BROWSERMCP_SESSION=") && !strings.HasPrefix(kv, "BROWSERMCP_RUNTIME_DIR=") {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "BROWSERMCP_RUNTIME_DIR="+s.rt)
	t.Cleanup(s.stopAll)
	return s
}

// run runs one command and returns its stdout, stderr and exit status.
func (s *cliShell) run(stdin string, args ...string) (string, string, int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Env = s.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// The daemon a command starts inherits no pipe of ours: Wait returns
	// when the command exits.
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		s.t.Fatalf("browsermcp %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// ok runs a command that must succeed and returns its stdout.
func (s *cliShell) ok(args ...string) string {
	s.t.Helper()
	out, errs, code := s.run("", args...)
	if code != 0 {
		s.t.Fatalf("browsermcp %q: exit %d\nstdout: %s\nstderr: %s\ndaemon log: %s", args, code, out, errs, s.log())
	}
	return out
}

func (s *cliShell) log() string {
	b, _ := os.ReadFile(filepath.Join(s.rt, "daemon.log"))
	return string(b)
}

// daemonPID is the pid daemon.json names, 0 without one.
func (s *cliShell) daemonPID() int {
	b, err := os.ReadFile(filepath.Join(s.rt, "daemon.json"))
	if err != nil {
		return 0
	}
	var in struct {
		PID int `json:"pid"`
	}
	json.Unmarshal(b, &in)
	return in.PID
}

// daemons are the pids of the daemons running on this shell's runtime
// directory, found by their command line.
func (s *cliShell) daemons() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 3 && args[1] == "daemon" && args[2] == "--runtime-dir" && args[3] == s.rt && !zombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// stopAll stops the daemon with close --all, then kills what is left of
// any daemon of this runtime directory, with its process group (its
// browser).
func (s *cliShell) stopAll() {
	if out, errs, code := s.run("", "close", "--all"); code != 0 {
		s.t.Logf("close --all: exit %d: %s%s", code, out, errs)
	}
	for _, pid := range s.daemons() {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	testenv.Eventually(s.t, "the daemons to exit", func() (bool, error) {
		return len(s.daemons()) == 0, nil
	})
}

// refOf finds the ref of the outline line that holds line.
func refOf(t *testing.T, outline, line string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(line) + `.*\[ref=(e[0-9]+)\]`).FindStringSubmatch(outline)
	if m == nil {
		t.Fatalf("no ref for %q in:\n%s", line, outline)
	}
	return m[1]
}

// TestCLIOpenSnapshotClickFill is the loop of a shell agent, one process
// per step on one session: open, snapshot -i, click by ref (@e and bare),
// fill by ref, and the page's state read back.
func TestCLIOpenSnapshotClickFill(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	if out := s.ok("open", site.URL+"/form.html"); !strings.Contains(out, "title: Sign in\n") {
		t.Errorf("open printed %q", out)
	}
	outline := s.ok("snapshot", "-i")
	count := refOf(t, outline, `button "Count"`)
	user := refOf(t, outline, `textbox "Username"`)
	if out := s.ok("click", "@"+count); !strings.Contains(out, "Clicked ref "+count) {
		t.Errorf("click printed %q", out)
	}
	s.ok("click", count)
	if got := strings.TrimSpace(s.ok("get", "title")); got != "clicked 2" {
		t.Errorf("after two clicks the title is %q", got)
	}
	s.ok("fill", "@"+user, "alice")
	if got := strings.TrimSpace(s.ok("get", "value", "#user")); got != "alice" {
		t.Errorf("the username field holds %q", got)
	}
	if got := s.ok("get_attribute", "type", "--selector", "#pass"); !strings.Contains(got, "value: password\n") {
		t.Errorf("get_attribute by the tool's own name: %q", got)
	}
	var st struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal([]byte(s.ok("get_page_metadata", "--json")), &st); err != nil || st.Title != "user=alice" || st.URL != site.URL+"/form.html" {
		t.Errorf("--json: %+v, %v", st, err)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	s.ok("screenshot", shot)
	if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("the screenshot file: %v, %d bytes", err, len(b))
	}
	if n := len(s.daemons()); n != 1 {
		t.Errorf("%d daemons ran the commands", n)
	}
}

// TestCLIFindRegex: find --regex goes through the find alias, which
// shadows the tool's name; it was refused as "find needs <text>", so no
// command reached the tool's regex. A regex that does not parse is the
// tool's INVALID_PARAMETERS, and find with neither is bad usage.
func TestCLIFindRegex(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	s.ok("open", site.URL+"/find.html")
	out := s.ok("find", "--regex", "(Green|Red) (mug|teapot)")
	if !strings.HasPrefix(out, "2 of ") || !strings.Contains(out, `heading "Green mug"`) || !strings.Contains(out, `heading "Red teapot"`) || strings.Contains(out, `heading "Blue mug"`) {
		t.Errorf("find --regex printed:\n%s", out)
	}
	// The lines are the page's: the whole outline holds them.
	outline := s.ok("snapshot")
	for _, l := range []string{`heading "Green mug" [level=3]`, `heading "Red teapot" [level=3]`} {
		if !strings.Contains(out, l) || !strings.Contains(outline, l) {
			t.Errorf("%q: in find's lines %v, in the outline %v", l, strings.Contains(out, l), strings.Contains(outline, l))
		}
	}
	if out, errs, code := s.run("", "find", "--regex", "(mug"); code != 1 || out != "" || !strings.Contains(errs, "INVALID_PARAMETERS: regex \"(mug\" does not parse") {
		t.Errorf("find --regex (mug: exit %d, %q %q", code, out, errs)
	}
	if out, errs, code := s.run("", "find"); code != 2 || out != "" || !strings.Contains(errs, "find needs <text> or --regex RE") {
		t.Errorf("find: exit %d, %q %q", code, out, errs)
	}
}

// TestCLIAliasTakesToolOptions: an alias shadows its tool's name, and its
// help names the tool's arguments as options; given those instead of its
// positionals (click --selector "#count", get text --ref @e5), it calls
// the tool with them. They were refused as bad usage, and --ref @e5 was
// refused as no ref.
func TestCLIAliasTakesToolOptions(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	s.ok("open", site.URL+"/form.html")
	count := refOf(t, s.ok("snapshot", "-i"), `button "Count"`)
	if out := s.ok("click", "--selector", "#count"); !strings.HasPrefix(out, "Clicked selector #count") {
		t.Errorf("click --selector printed %q", out)
	}
	if out := s.ok("click", "--ref", "@"+count); !strings.HasPrefix(out, "Clicked ref "+count) {
		t.Errorf("click --ref @%s printed %q", count, out)
	}
	if got := strings.TrimSpace(s.ok("get", "title")); got != "clicked 2" {
		t.Errorf("after two clicks the title is %q", got)
	}
	s.ok("fill", "--selector", "#user", "--value", "alice")
	if got := strings.TrimSpace(s.ok("get", "value", "--selector", "#user")); got != "alice" {
		t.Errorf("get value --selector #user: %q", got)
	}
	if got := strings.TrimSpace(s.ok("get", "text", "--ref", "@"+count)); got != "Count" {
		t.Errorf("get text --ref @%s: %q", count, got)
	}
	if got := s.ok("get", "attr", "--ref", count, "id"); !strings.Contains(got, "value: count\n") {
		t.Errorf("get attr --ref %s id: %q", count, got)
	}
	// Without a target the tool names what is missing.
	if out, errs, code := s.run("", "click", "--timeout", "300"); code != 1 || out != "" || !strings.Contains(errs, "INVALID_PARAMETERS: give selector") {
		t.Errorf("click --timeout 300: exit %d, %q %q", code, out, errs)
	}
}

// TestCLISessionsIsolated runs two --session names side by side: each its
// own page, and BROWSERMCP_SESSION picks one as --session does.
func TestCLISessionsIsolated(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	s.ok("--session", "a", "open", site.URL+"/form.html")
	s.ok("open", site.URL+"/catalog.html", "--session=b")
	s.ok("--session", "a", "click", "#count")
	if got := strings.TrimSpace(s.ok("--session", "a", "get", "title")); got != "clicked 1" {
		t.Errorf("session a's title: %q", got)
	}
	if got := strings.TrimSpace(s.ok("--session", "b", "get", "title")); got != "Catalog" {
		t.Errorf("session b's title: %q", got)
	}
	s.env = append(s.env, "BROWSERMCP_SESSION=b")
	if got := strings.TrimSpace(s.ok("get", "url")); got != site.URL+"/catalog.html" {
		t.Errorf("BROWSERMCP_SESSION=b: %q", got)
	}
	list := s.ok("sessions", "--json")
	for _, name := range []string{`"name":"a"`, `"name":"b"`} {
		if !strings.Contains(list, name) {
			t.Errorf("sessions lacks %s: %s", name, list)
		}
	}
	s.ok("close", "--session", "a")
	if _, errs, code := s.run("", "sessions"); code != 0 || strings.Contains(s.ok("sessions", "--json"), `"name":"a"`) {
		t.Errorf("session a after close: exit %d %s", code, errs)
	}
}

// TestCLIDaemonReplacedAfterSIGKILL kills the daemon: its socket stays
// behind, and the next command starts a new daemon in its place.
func TestCLIDaemonReplacedAfterSIGKILL(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	s.ok("open", site.URL+"/form.html")
	old := s.daemonPID()
	if old == 0 {
		t.Fatal("no daemon.json")
	}
	syscall.Kill(-old, syscall.SIGKILL)
	testenv.Eventually(t, "the killed daemon to be gone", func() (bool, error) {
		return len(s.daemons()) == 0, nil
	})
	if _, err := os.Stat(filepath.Join(s.rt, "daemon.sock")); err != nil {
		t.Fatalf("the killed daemon's socket: %v", err)
	}
	if out := s.ok("open", site.URL+"/catalog.html"); !strings.Contains(out, "Catalog") {
		t.Errorf("open on the new daemon: %q", out)
	}
	if pid := s.daemonPID(); pid == old || pid == 0 {
		t.Errorf("daemon pid %d after the old one (%d) was killed", pid, old)
	}
}

// TestCLIFirstCommandsRace starts two first commands at once: both
// succeed, on one daemon.
func TestCLIFirstCommandsRace(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	var wg sync.WaitGroup
	type res struct {
		out, errs string
		code      int
	}
	results := make([]res, 2)
	for i, name := range []string{"one", "two"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, errs, code := s.run("", "--session", name, "open", site.URL+"/form.html")
			results[i] = res{out, errs, code}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("command %d: exit %d: %s%s\n%s", i, r.code, r.out, r.errs, s.log())
		}
	}
	if d := s.daemons(); len(d) != 1 {
		t.Errorf("daemons running: %v", d)
	}
	list := s.ok("sessions", "--json")
	if !strings.Contains(list, `"name":"one"`) || !strings.Contains(list, `"name":"two"`) {
		t.Errorf("the daemon's sessions: %s", list)
	}
}

// TestCLIIdleExit starts a daemon with a short --idle-timeout: it exits,
// removing its socket, and the next command starts another.
func TestCLIIdleExit(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	s.ok("--idle-timeout", "3s", "open", site.URL+"/form.html")
	pid := s.daemonPID()
	testenv.Eventually(t, "the idle daemon to exit", func() (bool, error) {
		return len(s.daemons()) == 0, nil
	})
	if _, err := os.Stat(filepath.Join(s.rt, "daemon.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the idle daemon left its socket: %v", err)
	}
	if !strings.Contains(s.log(), `why=idle`) {
		t.Errorf("the daemon's log does not say it stopped for idleness:\n%s", s.log())
	}
	s.ok("open", site.URL+"/form.html")
	if p := s.daemonPID(); p == pid || p == 0 {
		t.Errorf("the new daemon's pid %d (the idle one's: %d)", p, pid)
	}
}

// TestCLIExitCodes: 0 on success, 1 on a tool error with its code,
// message and suggestion on stderr, 2 on bad usage with the command's
// help, and 2 for a command that asks the running daemon for other server
// flags.
func TestCLIExitCodes(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"clck", "@e1"}, `unknown command "clck"
Did you mean "click"?`},
		{[]string{"click"}, "usage: browsermcp click <@ref|selector>"},
		{[]string{"click", "@e1", "--nope", "1"}, "unknown option --nope"},
		{[]string{"get", "colour", "#x"}, "get takes text, value, attr, title or url"},
		{[]string{"click", "#a", "--timeout", "soon"}, "--timeout takes an integer"},
		{[]string{"batch", "--frob"}, "usage: browsermcp batch"},
		{[]string{"skill", "--frob"}, "usage: browsermcp skill"},
	} {
		out, errs, code := s.run("", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	if out, errs, code := s.run("", "close"); code != 0 || !strings.Contains(out, "No daemon is running") {
		t.Errorf("close without a daemon: exit %d, %q %q", code, out, errs)
	}
	if len(s.daemons()) != 0 {
		t.Error("a usage error, or close, started the daemon")
	}
	s.ok("open", site.URL+"/form.html")
	out, errs, code := s.run("", "click", "@e999")
	if code != 1 || out != "" || !strings.Contains(errs, "ELEMENT_NOT_FOUND: ") || !strings.Contains(errs, "suggestion: ") {
		t.Errorf("click @e999: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out, errs, code = s.run("", "click", "@e999", "--json")
	var body struct {
		ErrorCode  string `json:"errorCode"`
		Suggestion string `json:"suggestion"`
	}
	if err := json.Unmarshal([]byte(errs), &body); code != 1 || out != "" || err != nil || body.ErrorCode != "ELEMENT_NOT_FOUND" || body.Suggestion == "" {
		t.Errorf("click @e999 --json: exit %d, stdout %q, stderr %q (%v)", code, out, errs, err)
	}
	out, errs, code = s.run("", "open", "not a url")
	if code != 1 || !strings.Contains(errs, "INVALID_URL: ") {
		t.Errorf("open of a bad URL: exit %d, %q %q", code, out, errs)
	}
	out, errs, code = s.run("", "--browser", "firefox", "snapshot")
	if code != 2 || !strings.Contains(errs, "--browser=firefox") || !strings.Contains(errs, "close --all") {
		t.Errorf("a command asking for another browser: exit %d, %q %q", code, out, errs)
	}
}

// TestCLIBadGlobalValue: a bad value of a global flag before a command is
// the command line's usage error, exit 2 naming the value; it was handed
// to the MCP server, which answered that the command was an unexpected
// argument.
func TestCLIBadGlobalValue(t *testing.T) {
	s := newCLIShell(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--idle-timeout", "0", "get", "url"}, "--idle-timeout must be positive, got 0"},
		{[]string{"--idle-timeout=-5s", "snapshot"}, `--idle-timeout must be a positive duration such as 30m or a number of ms, got "-5s"`},
		{[]string{"--session=", "open", "about:blank"}, "--session must not be empty"},
	} {
		out, errs, code := s.run("", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "unexpected argument") || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	if len(s.daemons()) != 0 {
		t.Error("a usage error started the daemon")
	}
}

// TestCLIStateLoadBounded: state load reads at most 16 MiB of its file,
// which no daemon would take in one message: it read the whole file, and
// state load /dev/zero filled the memory.
func TestCLIStateLoadBounded(t *testing.T) {
	s := newCLIShell(t)
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(17 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, errs, code := s.run("", "state", "load", big)
	if code != 2 || out != "" || !strings.Contains(errs, big+" is larger than 16777216 bytes: not a saved state") {
		t.Errorf("state load of a 17 MiB file: exit %d, %q %q", code, out, errs)
	}
	if len(s.daemons()) != 0 {
		t.Error("a file state load refused started the daemon")
	}
}

// TestCLIIdleTimeoutMismatch: --idle-timeout applies when the daemon
// starts, as the server flags do; a command that asks the running daemon
// for another says so and exits 2. It was dropped without a word.
func TestCLIIdleTimeoutMismatch(t *testing.T) {
	s := newCLIShell(t)
	s.ok("--idle-timeout", "10m", "sessions")
	pid := s.daemonPID()
	out, errs, code := s.run("", "--idle-timeout", "5m", "sessions")
	if code != 2 || out != "" || !strings.Contains(errs, "runs with --idle-timeout 10m0s; this command asks for 5m0s") || !strings.Contains(errs, "close --all") {
		t.Errorf("another --idle-timeout: exit %d, %q %q", code, out, errs)
	}
	// The same timeout, in ms, and none at all are the daemon's.
	s.ok("--idle-timeout", "600000", "sessions")
	s.ok("sessions")
	if p := s.daemonPID(); p != pid {
		t.Errorf("the daemon changed: pid %d, was %d", p, pid)
	}
}

// TestCLIBatch runs several commands from stdin in one process: lines,
// a JSON array, and --bail.
func TestCLIBatch(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	lines := "open " + site.URL + "/form.html\n# a comment\nclick '#count'\nfill \"#user\" \"bob smith\"\nget value #user\nget title\n"
	out, errs, code := s.run(lines, "batch")
	if code != 0 || !strings.Contains(out, "bob smith\n") || !strings.Contains(out, "user=bob smith\n") {
		t.Fatalf("batch: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	arr := `[["click", "#count"], "get title"]`
	if out, errs, code := s.run(arr, "batch"); code != 0 || !strings.HasSuffix(out, "clicked 2\n") {
		t.Errorf("a JSON array: exit %d, %q %q", code, out, errs)
	}
	failing := "click '#count'\nclick '#nosuch' --timeout 200\nclick '#count'\n"
	out, errs, code = s.run(failing, "batch", "--bail")
	if code != 1 || !strings.Contains(errs, "ELEMENT_NOT_FOUND") || !strings.Contains(errs, "stopped at command 2 of 3") {
		t.Errorf("--bail: exit %d, %q %q", code, out, errs)
	}
	if got := strings.TrimSpace(s.ok("get", "title")); got != "clicked 3" {
		t.Errorf("after --bail stopped, the title is %q (the third click must not have run)", got)
	}
	out, errs, code = s.run(failing, "batch")
	if code != 1 || strings.Count(out, "Clicked") != 2 {
		t.Errorf("without --bail: exit %d, %q %q", code, out, errs)
	}
	if got := strings.TrimSpace(s.ok("get", "title")); got != "clicked 5" {
		t.Errorf("after the batch without --bail, the title is %q", got)
	}
}

// TestCLISkillCoversTheRegistry holds `browsermcp skill` to the registry:
// every tool is in it, with every alias's example, and --install writes
// the same text where Claude Code looks for skills.
func TestCLISkillCoversTheRegistry(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"skill"}, noEnv, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("skill: exit %d: %s", code, errb.String())
	}
	md := out.String()
	if !strings.HasPrefix(md, "---\nname: browsermcp\ndescription: ") {
		t.Errorf("the skill's front matter:\n%s", md[:min(len(md), 200)])
	}
	for _, d := range tools.Definitions() {
		if !strings.Contains(md, "`browsermcp "+d.Tool.Name) {
			t.Errorf("the skill lacks the tool %s", d.Tool.Name)
		}
	}
	for _, ex := range []string{"open https://example.com", "snapshot -i", "click @e12", "fill @e3", "batch --bail", "close --all"} {
		if !strings.Contains(md, ex) {
			t.Errorf("the skill lacks %q", ex)
		}
	}
	dir := t.TempDir()
	out.Reset()
	if code := run([]string{"skill", "--install", dir}, noEnv, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("skill --install: exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "browsermcp", "SKILL.md"))
	if err != nil || string(b) != md {
		t.Errorf("the installed skill differs from skill's output (%v)", err)
	}
}

// TestCLIAliases checks the aliases beyond the loop by the page's state:
// state save in one session and load in another carries the login, tab
// new and close, network route answers the page's fetch, dialog accept
// answers a prompt, and pdf writes a PDF.
func TestCLIAliases(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newCLIShell(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "login.json")

	s.ok("open", site.URL+"/login?user=ann")
	s.ok("state", "save", state)
	s.ok("--session", "other", "state", "load", state)
	s.ok("--session", "other", "open", site.URL+"/members")
	if got := strings.TrimSpace(s.ok("--session", "other", "get", "title")); !strings.HasPrefix(got, "s-ann t-ann ") {
		t.Errorf("the loaded state's page: %q", got)
	}
	if got := s.ok("--session", "other", "cookies"); !strings.Contains(got, `"value":"s-ann"`) {
		t.Errorf("cookies: %q", got)
	}

	s.ok("tab", "new", site.URL+"/catalog.html")
	var tabs struct {
		Current int `json:"current"`
		Tabs    []struct {
			URL string `json:"url"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(s.ok("tab", "list", "--json")), &tabs); err != nil || len(tabs.Tabs) != 2 || tabs.Current != 1 {
		t.Fatalf("tab list after tab new: %+v %v", tabs, err)
	}
	s.ok("tab", "close", "1")
	if got := strings.TrimSpace(s.ok("get", "url")); !strings.HasSuffix(got, "/login?user=ann") {
		t.Errorf("after tab close, the current tab is %q", got)
	}

	s.ok("network", "route", "*/api/data", "--body", `{"source":"mock"}`)
	if got := s.ok("eval", "fetch('/api/data').then(r => r.json()).then(j => j.source)"); !strings.Contains(got, "mock") {
		t.Errorf("the routed fetch answered %q", got)
	}
	s.ok("network", "unroute", "*/api/data")
	if got := s.ok("eval", "fetch('/api/data').then(r => r.json()).then(j => j.source)"); !strings.Contains(got, "server") {
		t.Errorf("after unroute the fetch answered %q", got)
	}

	s.ok("open", site.URL+"/dialogs.html")
	if out := s.ok("click", "#prompt"); !strings.Contains(out, "dialog") {
		t.Errorf("the click that opened a prompt printed %q", out)
	}
	s.ok("dialog", "accept", "Zoe")
	if got := strings.TrimSpace(s.ok("get", "title")); got != "name=Zoe" {
		t.Errorf("after dialog accept Zoe the title is %q", got)
	}

	pdf := filepath.Join(dir, "page.pdf")
	s.ok("pdf", pdf)
	if b, err := os.ReadFile(pdf); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("pdf: %v, %d bytes", err, len(b))
	}
}
