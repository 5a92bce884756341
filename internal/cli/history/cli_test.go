package history_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli"
	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// run executes the whole command tree, as `asky args…` would, in a home
// directory of its own.
func run(t *testing.T, home string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	f := cmdutil.New(io)
	env := map[string]string{"ASKY_HOME": home, "HOME": home}
	f.Getenv = func(k string) string { return env[k] }
	code = cli.Run(args, f)
	return code, out.String(), errOut.String()
}

func TestHistoryListWithNonSQLiteDatabase(t *testing.T) {
	home := t.TempDir()
	db := filepath.Join(home, "asky.db")
	garbage := []byte(strings.Repeat("definitely not sqlite\n", 100))
	if err := os.WriteFile(db, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"history", "list"}, {"history", "show", "~1"}, {"history", "delete", "--all", "--yes"}} {
		code, stdout, stderr := run(t, home, args...)
		if code != 1 || stdout != "" {
			t.Fatalf("%v: exit %d stdout %q", args, code, stdout)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "error: "+db+" is not a usable asky database") ||
			!strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], "mv "+db+" "+db+".bad") {
			t.Fatalf("%v: stderr is not one error line plus one hint:\n%s", args, stderr)
		}
		after, err := os.ReadFile(db)
		if err != nil || !bytes.Equal(after, garbage) {
			t.Fatalf("%v: the database file was modified", args)
		}
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 {
		t.Fatalf("files were created next to the bad database: %v", entries)
	}
}

func TestHistoryNewerSchemaHint(t *testing.T) {
	home := t.TempDir()
	if code, _, stderr := run(t, home, "history", "list"); code != 0 {
		t.Fatalf("fresh list: exit %d: %s", code, stderr)
	}
	db := filepath.Join(home, "asky.db")
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	b[60], b[61], b[62], b[63] = 0, 0, 0x27, 0x0f // user_version 9999
	if err := os.WriteFile(db, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, home, "history", "list")
	if code != 1 || !strings.Contains(stderr, "newer than this asky supports") || !strings.Contains(stderr, "hint: install a newer asky") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// TestFastPathsTouchNeitherConfigNorDB puts a broken config and a garbage
// database in the home: commands that need neither must still succeed,
// which proves they never load them.
func TestFastPathsTouchNeitherConfigNorDB(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[general\nbroken = "), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(home, "asky.db")
	if err := os.WriteFile(db, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--help"}, {"--version"}, {"history", "--help"}, {"history", "list", "--help"}, {"completion", "bash"}, {"completion", "zsh"}} {
		code, stdout, stderr := run(t, home, args...)
		if code != 0 || stdout == "" {
			t.Errorf("%v: exit %d stderr %q", args, code, stderr)
		}
	}
	// The same home does break a command that needs them, so the check
	// above can fail.
	if code, _, _ := run(t, home, "history", "list"); code == 0 {
		t.Fatal("history list succeeded with a broken config and database")
	}
	if b, _ := os.ReadFile(db); string(b) != "garbage" {
		t.Fatal("database modified")
	}
}

func TestHistoryEndToEnd(t *testing.T) {
	home := t.TempDir()
	code, stdout, stderr := run(t, home, "history", "show", "~0")
	if code != 2 || !strings.Contains(stderr, "error: invalid history selector \"~0\"") || stdout != "" {
		t.Fatalf("~0: exit %d stderr %q", code, stderr)
	}
	if code, _, stderr = run(t, home, "history", "list", "--bogus"); code != 2 {
		t.Fatalf("unknown flag: exit %d %q", code, stderr)
	}
	if code, _, stderr = run(t, home, "history", "delete", "--all"); code != 0 || !strings.Contains(stderr, "already empty") {
		t.Fatalf("delete --all on empty: exit %d %q", code, stderr)
	}
	if code, stdout, _ = run(t, home, "history", "list", "--json"); code != 0 || stdout != "[]\n" {
		t.Fatalf("list --json: exit %d %q", code, stdout)
	}
}

func TestSelectorCompletion(t *testing.T) {
	home := t.TempDir()
	// No database yet: nothing offered, and none created.
	code, stdout, _ := run(t, home, "__complete", "history", "show", "")
	if code != 0 || strings.Contains(stdout, "\t") {
		t.Fatalf("completion on a fresh home: exit %d %q", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(home, "asky.db")); err == nil {
		t.Fatal("completion created the database")
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveTurn(context.Background(), &store.Turn{Query: "capital\nof France"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, stdout, _ = run(t, home, "__complete", "history", "delete", "")
	if !strings.HasPrefix(stdout, "1\tcapital of France\n") {
		t.Fatalf("completion = %q", stdout)
	}
}
