package session_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli"
)

// TestMain lets the test binary act as asky, so tests can run it from real
// shells: each `sh -c` is a different parent process, like two terminals.
func TestMain(m *testing.M) {
	if os.Getenv("ASKY_TEST_AS_MAIN") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

type world struct {
	t             *testing.T
	home, runtime string
}

// sh runs script in a new shell where $ASKY is asky; the trailing exit
// keeps the shell from exec-ing the last command (which would change its
// parent process).
func (w world) sh(script string) (string, string, int) {
	w.t.Helper()
	cmd := exec.Command("sh", "-c", script+"\nexit $?")
	cmd.Env = append(os.Environ(), "ASKY_TEST_AS_MAIN=1", "ASKY="+os.Args[0], "ASKY_HOME="+w.home,
		"XDG_RUNTIME_DIR="+w.runtime, "NO_COLOR=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestShellStickinessAcrossProcesses(t *testing.T) {
	w := world{t: t, home: t.TempDir(), runtime: t.TempDir()}
	out, errOut, code := w.sh(`"$ASKY" session create trip && "$ASKY" session show --json`)
	if code != 0 || !strings.Contains(errOut, "Created session 1 (trip)") {
		t.Fatalf("create: %d %q", code, errOut)
	}
	var shown struct {
		Session struct {
			ID      int64 `json:"id"`
			Current bool  `json:"current"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.Session.ID != 1 || !shown.Session.Current {
		t.Fatalf("show in the same shell: %v %q", err, out)
	}
	// Another shell is not bound.
	_, errOut, code = w.sh(`"$ASKY" session show`)
	if code != 1 || !strings.Contains(errOut, "not bound") {
		t.Fatalf("other shell: %d %q", code, errOut)
	}
	// Two shells bound to two sessions at once stay independent.
	out, errOut, code = w.sh(`"$ASKY" session create second >/dev/null 2>&1; "$ASKY" session use trip && "$ASKY" session list --json`)
	if code != 0 || !strings.Contains(errOut, "now continues session 1 (trip)") {
		t.Fatalf("use: %d %q", code, errOut)
	}
	var list struct {
		Sessions []struct {
			Name    string `json:"name"`
			Current bool   `json:"current"`
		} `json:"sessions"`
	}
	json.Unmarshal([]byte(out), &list)
	if len(list.Sessions) != 2 {
		t.Fatalf("list %q", out)
	}
	for _, s := range list.Sessions {
		if s.Current != (s.Name == "trip") {
			t.Errorf("current mark wrong: %+v", list.Sessions)
		}
	}
	// end detaches and says so; legacy -se works the same.
	_, errOut, _ = w.sh(`"$ASKY" session use second && "$ASKY" session end && "$ASKY" -se`)
	if !strings.Contains(errOut, "Detached from session 2 (second).") || !strings.Contains(errOut, "not bound to a session") {
		t.Fatalf("end: %q", errOut)
	}
}

func TestSessionVerbErrors(t *testing.T) {
	w := world{t: t, home: t.TempDir(), runtime: t.TempDir()}
	w.sh(`"$ASKY" session create paris-trip; "$ASKY" session create paris-food`)
	for _, tc := range []struct {
		script string
		code   int
		want   string
	}{
		{`"$ASKY" session use paris`, 2, "ambiguous: matches 2 (paris-food), 1 (paris-trip)"},
		{`"$ASKY" session use nothing`, 1, "hint: see `asky session list`"},
		// A taken name gets _2 (§1.7), and says so.
		{`"$ASKY" session create paris-trip`, 0, `Created session 3 (paris-trip_2), as "paris-trip" is taken`},
		{`"$ASKY" session create 42`, 2, "would read as an id"},
		{`"$ASKY" session delete --all`, 2, "--yes"},
		// Control characters are refused where a name comes in, not only
		// cleaned when printed.
		{`"$ASKY" session create "$(printf 'a\033[31mred')"`, 2, `session name "a\x1b[31mred" contains a control character`},
		{`"$ASKY" session create "$(printf 'two\nlines')"`, 2, "use a single line of printable characters"},
		{`"$ASKY" session create "$(printf 'bell\a')"`, 2, "control character"},
		{`"$ASKY" session create "$(printf 'c1\302\233x')"`, 2, "control character"},
		{`"$ASKY" session rename paris-food "$(printf 'x\033y')"`, 2, "control character"},
		{`"$ASKY" -ss "$(printf 'x\033]0;title\007')" hello`, 2, "control character"},
		{`"$ASKY" --sticky-session "$(printf 'x\ry')" hello`, 2, "control character"},
		{`"$ASKY" session bogus`, 2, "is not a session command"},
		{`"$ASKY" -rs nope`, 1, "no session matches"},
		{`"$ASKY" session rename food paris-eats && "$ASKY" -sh`, 0, "paris-eats"},
		{`"$ASKY" session delete S1`, 0, "Deleted session 1 (paris-trip)."},
	} {
		out, errOut, code := w.sh(tc.script)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: exit %d (want %d)\nstdout %q\nstderr %q", tc.script, code, tc.code, out, errOut)
		}
	}
	// A corrupt binding file is cleared with a notice, never an error.
	_, errOut, code := w.sh(`printf 'junk' > "$XDG_RUNTIME_DIR/asky/session-$$"; "$ASKY" session show`)
	if code != 1 || !strings.Contains(errOut, "cleared a corrupt shell session binding") {
		t.Errorf("corrupt binding: %d %q", code, errOut)
	}
}
