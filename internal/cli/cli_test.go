package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
)

// testFactory returns a factory isolated in a temp ASKY_HOME with no API
// keys and no local-server probing.
func testFactory(t *testing.T, env map[string]string) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	io.SetTTY(true, false, false)
	home := t.TempDir()
	vars := map[string]string{"ASKY_HOME": home, "HOME": home}
	for k, v := range env {
		vars[k] = v
	}
	f := cmdutil.New(io)
	f.Getenv = func(k string) string { return vars[k] }
	f.Probe = nil
	return f, in, out, errOut
}

func TestStrictGroups(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"session", "banana"}, `error: "banana" is not a session command; to ask it: asky query "session banana" (session commands: `},
		{[]string{"history", "of", "rome"}, `error: "of" is not a history command; to ask it: asky query "history of rome" (history commands: browse, delete, list, search, show)` + "\n"},
		{[]string{"history", "lsit"}, "error: \"lsit\" is not a history command; did you mean `asky history list`?\n"},
		{[]string{"corpus", "what", "is", "this"}, `to ask it: asky query "corpus what is this"`},
		{[]string{"config", "model", "nope"}, `"nope" is not a config model command`},
		{[]string{"memory"}, "Usage:"},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			f, _, out, errOut := testFactory(t, nil)
			code := Run(tc.args, f)
			if code != cmdutil.ExitUsage {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, errOut)
			}
			if out.Len() != 0 {
				t.Errorf("stdout must stay empty, got %q", out)
			}
			if !strings.Contains(errOut.String(), tc.want) || !strings.Contains(errOut.String(), "error: ") {
				t.Errorf("want %q and an error line, got:\n%s", tc.want, errOut)
			}
			// A wrong verb is one line, not a page of help.
			if tc.args[0] != "memory" && strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("want one line, got:\n%s", errOut)
			}
		})
	}
}

func TestNearMissCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" = goes to the model (no model here: exit 3)
	}{
		{[]string{"histroy", "list"}, "did you mean `asky history list`?"},
		{[]string{"sesion"}, "did you mean `asky session`?"},
		{[]string{"sesion", "show", "3"}, "did you mean `asky session show 3`?"},
		{[]string{"versoin"}, "did you mean `asky version`?"},
		{[]string{"hlep", "history"}, "did you mean `asky help history`?"},
		{[]string{"hello"}, ""},
		{[]string{"hi"}, ""},
		{[]string{"prompt", "engineering", "tips"}, ""},
		{[]string{"every", "day", "ideas"}, ""},
		{[]string{"histroy list"}, ""},
		{[]string{"--", "histroy", "list"}, ""},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			f, _, out, errOut := testFactory(t, nil)
			code := Run(tc.args, f)
			if tc.want == "" {
				if code != cmdutil.ExitNoModel {
					t.Errorf("exit %d, want 3 (asked the model); stderr:\n%s", code, errOut)
				}
				return
			}
			if code != cmdutil.ExitUsage || out.Len() != 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, errOut, tc.want)
			}
		})
	}
}

func TestHelpWithAQuestion(t *testing.T) {
	f, _, out, errOut := testFactory(t, nil)
	code := Run([]string{"help", "me", "write", "a", "haiku"}, f)
	if code != cmdutil.ExitUsage || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if want := `error: no help topic "me write a haiku"; to ask it: asky query "help me write a haiku"`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr:\n%s\nwant %q", errOut, want)
	}
	if strings.Contains(errOut.String(), "Usage:") {
		t.Errorf("no page of help for a question:\n%s", errOut)
	}
}

func TestVersionWithWordsIsAQuestion(t *testing.T) {
	f, _, out, errOut := testFactory(t, nil)
	if code := Run([]string{"version", "control", "tips"}, f); code != cmdutil.ExitUsage || out.Len() != 0 ||
		!strings.Contains(errOut.String(), `to ask it: asky query "version control tips"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-V"}, {"--version"}} {
		f, _, out, errOut := testFactory(t, nil)
		if code := Run(args, f); code != 0 || !strings.HasPrefix(out.String(), "asky version ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestHelpAndVersionTouchNothing(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"--version"}, {"version"}, {"-V"}, {"help", "history"}, {"history", "--help"}, {"completion", "bash"}, {"query", "--help"}} {
		f, _, out, errOut := testFactory(t, nil)
		home := f.Getenv("ASKY_HOME")
		// A config that would fail to parse proves config is never read.
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[general\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code := Run(args, f); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		if out.Len() == 0 {
			t.Errorf("%v printed nothing", args)
		}
		if _, err := os.Stat(filepath.Join(home, "asky.db")); err == nil {
			t.Errorf("%v created the database", args)
		}
	}
}

// Optional-value flags show their value name, not the internal no-value
// marker (`path[=" "]`), and keep working after the help was printed.
func TestHelpHidesNoValueMarkers(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"query", "--help"}, {"help", "query"}} {
		f, _, out, _ := testFactory(t, nil)
		if code := Run(args, f); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if strings.Contains(out.String(), `[=" "]`) || strings.Contains(out.String(), `[="list"]`) {
			t.Errorf("%v shows a no-value marker:\n%s", args, out)
		}
		for _, want := range []string{"-o, --output path ", "--terminal-lines N ", `-c, --continue-chat selector[="~1"]`} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v lacks %q", args, want)
			}
		}
	}
}

func TestBadConfigReportsPosition(t *testing.T) {
	f, _, _, errOut := testFactory(t, nil)
	home := f.Getenv("ASKY_HOME")
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[general]\ndefault_model = \"x\"\nmax_turns = = 3\n"), 0o600)
	code := Run([]string{"hello"}, f)
	if code != cmdutil.ExitError {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "config.toml:3:") || !strings.Contains(errOut.String(), "hint: ") {
		t.Errorf("want file:line and a hint, got:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "asky.db")); err == nil {
		t.Error("nothing may be written when the config is bad")
	}
}

func TestNoModelExits3(t *testing.T) {
	f, _, out, errOut := testFactory(t, nil)
	code := Run([]string{"what", "is", "up"}, f)
	if code != cmdutil.ExitNoModel {
		t.Fatalf("exit %d, want 3\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "asky config model add") || out.Len() != 0 {
		t.Errorf("stderr:\n%s\nstdout:\n%s", errOut, out)
	}
}

func TestUnknownAliasExits2(t *testing.T) {
	f, _, _, errOut := testFactory(t, nil)
	home := f.Getenv("ASKY_HOME")
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(`[api.local]
base_url = "http://127.0.0.1:9/v1"
[models.fast]
api = "local"
id = "m1"
[models.slow]
api = "local"
id = "m2"
`), 0o600)
	code := Run([]string{"-m", "nope", "hi"}, f)
	if code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "fast, slow") {
		t.Errorf("want aliases listed, got:\n%s", errOut)
	}
}

// A default (general.default_model, $ASKY_MODEL) naming an alias that is not
// configured is "no model configured" (exit 3), not a usage error.
func TestUnknownDefaultAliasExits3(t *testing.T) {
	for _, env := range []map[string]string{{"ASKY_MODEL": "gone"}, nil} {
		f, _, _, errOut := testFactory(t, env)
		home := f.Getenv("ASKY_HOME")
		os.WriteFile(filepath.Join(home, "config.toml"), []byte("[general]\ndefault_model = \"gone\"\n[api.local]\nbase_url = \"http://127.0.0.1:9/v1\"\n[models.fast]\napi = \"local\"\nid = \"m1\"\n"), 0o600)
		if code := Run([]string{"hi"}, f); code != cmdutil.ExitNoModel {
			t.Errorf("%v: exit %d, want 3\n%s", env, code, errOut)
		}
	}
}

func TestNoQuestionIsUsageError(t *testing.T) {
	f, _, _, errOut := testFactory(t, nil)
	if code := Run([]string{"-cc"}, f); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
}

func TestBinaryStdinRefused(t *testing.T) {
	f, in, _, errOut := testFactory(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
	f.IO.SetTTY(false, false, false)
	in.Write([]byte("PK\x03\x04\x00\x00binary"))
	if code := Run([]string{"what is this"}, f); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "binary") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

func TestTranslateLegacyArgs(t *testing.T) {
	got := strings.Join(TranslateLegacyArgs([]string{"-sp", "be brief", "-off", "web_search", "-L", "--", "-sp", "x"}), "|")
	want := "--system-prompt|be brief|--tool-off|web_search|-L|--|-sp|x"
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// The original's argparse took -flag=value too.
	got = strings.Join(TranslateLegacyArgs([]string{"-sp=be = brief", "-off=a,b", "-pa=3", "-x=1", "--", "-sp=x"}), "|")
	want = "--system-prompt=be = brief|--tool-off=a,b|--print-answer=3|-x=1|--|-sp=x"
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestUnknownToolOffIsUsageError(t *testing.T) {
	f, _, _, errOut := testFactory(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
	if code := Run([]string{"-off", "no_such_tool", "hi"}, f); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
}

// An unreachable embedder is a research configuration problem: exit 1 and
// a hint about [research.embedding], not the chat model's exit 3.
func TestUnreachableEmbedderHint(t *testing.T) {
	f, _, _, errOut := testFactory(t, nil)
	cfg := "[research.embedding]\nprovider = \"ollama\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1\"\n"
	if err := os.WriteFile(filepath.Join(f.Getenv("ASKY_HOME"), "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := Run([]string{"corpus", "query", "pager"}, f); code != cmdutil.ExitError {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "unreachable") || !strings.Contains(errOut.String(), "hint: check [research.embedding]") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

// A research pointer that is neither a path, a name under the document
// roots nor `web` is a usage error naming it, never question text.
func TestMissingResearchPointerExits2(t *testing.T) {
	for _, args := range [][]string{{"-r", "./nonexistent/", "q"}, {"-r=./nonexistent/", "q"}} {
		f, _, _, errOut := testFactory(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
		if code := Run(args, f); code != cmdutil.ExitUsage {
			t.Fatalf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
		if !strings.Contains(errOut.String(), `"./nonexistent/"`) || !strings.Contains(errOut.String(), "hint:") {
			t.Errorf("%v: stderr:\n%s", args, errOut)
		}
	}
}

func TestBadShortlistValueIsUsageError(t *testing.T) {
	f, _, _, errOut := testFactory(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
	if code := Run([]string{"--shortlist", "maybe", "hi"}, f); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "on, off or reset") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

func TestVersionFlagWithWordsIsRefused(t *testing.T) {
	for _, args := range [][]string{{"-V", "what", "is", "this"}, {"what", "is", "--version", "this"}} {
		f, _, out, errOut := testFactory(t, nil)
		if code := Run(args, f); code != cmdutil.ExitUsage || out.Len() != 0 ||
			!strings.Contains(errOut.String(), `to ask it: asky query "what is this"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// A flag value a command refuses is a usage error with a hint naming the
// command's help, like a flag cobra itself refuses.
func TestRefusedFlagValueHasHint(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "-1", "hi"}, "hint: see `asky --help`"},
		{[]string{"-t", "0", "hi"}, "--turns must be positive, got 0"},
		{[]string{"-ss", "", "hi"}, "--sticky-session needs a value, got an empty one"},
		{[]string{"query", "-m", " ", "hi"}, "--model needs a value, got an empty one"},
		{[]string{"-ss", "a", "-rs", "b", "hi"}, "--sticky-session and --resume-session cannot be combined"},
		{[]string{"--reply", "-sfm", "4", "hi"}, "--reply and --session-from-message cannot be combined"},
		{[]string{"--session", "-ss", "x", "hi"}, "--sticky-session and --session cannot be combined"},
		{[]string{"-H", "-pa", "1"}, "--history and --print-answer cannot be combined"},
		{[]string{"--shortlist", "maybe", "hi"}, "hint: see `asky --help`"},
		{[]string{"query", "--subject", "s", "hi"}, "hint: see `asky query --help`"},
		{[]string{"job", "add", "x", "--every", "bogus"}, "hint: see `asky job add --help`"},
		{[]string{"session", "list", "0"}, "hint: see `asky session list --help`"},
	} {
		f, _, _, errOut := testFactory(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
		if code := Run(tc.args, f); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", tc.args, code, errOut)
		}
		if !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: want %q in:\n%s", tc.args, tc.want, errOut)
		}
	}
}

// pflag shows a backquoted word of a flag's usage as its value name; on a
// switch that reads as a value it does not take ("--no-deep asky corpus
// embed"), so no switch's usage has backquotes.
func TestSwitchUsageHasNoValueName(t *testing.T) {
	f, _, _, _ := testFactory(t, nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() == "bool" && strings.Contains(fl.Usage, "`") {
				t.Errorf("%s --%s: usage %q names a value", c.CommandPath(), fl.Name, fl.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
}

// Every command's --help shows examples (the help command is cobra's).
func TestEveryCommandHasExamples(t *testing.T) {
	f, _, _, _ := testFactory(t, nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
}

// The original's flags that became grouped verbs are refused with the
// command to use instead; its hidden --from-message still works.
func TestMovedFlagsNameTheirCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompts"}, "hint: the original asky's --prompts is `asky prompts list` here"},
		{[]string{"-p"}, "hint: the original asky's -p is `asky prompts list` here"},
		{[]string{"--query-corpus=pager"}, "`asky corpus query TEXT`"},
		{[]string{"--add-model"}, "`asky config model add`"},
		{[]string{"--bogus"}, "hint: see `asky --help`"},
	} {
		f, _, _, errOut := testFactory(t, nil)
		if code := Run(tc.args, f); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, want %q in:\n%s", tc.args, code, tc.want, errOut)
		}
	}
	if got := TranslateLegacyArgs([]string{"--from-message", "4"}); got[0] != "--session-from-message" {
		t.Errorf("--from-message: %v", got)
	}
}

func TestVersionJSON(t *testing.T) {
	for _, args := range [][]string{{"version", "--json"}, {"-V", "--json"}} {
		f, _, out, errOut := testFactory(t, nil)
		var got map[string]string
		if code := Run(args, f); code != 0 || json.Unmarshal(out.Bytes(), &got) != nil || got["version"] == "" || got["os"] == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// A flag value of the wrong type is worded for a person, exit 2.
func TestFlagValueErrorIsPlain(t *testing.T) {
	f, _, _, errOut := testFactory(t, nil)
	if code := Run([]string{"-t", "abc", "hi"}, f); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	if got := errOut.String(); !strings.Contains(got, `error: --turns takes a whole number, got "abc"`) || strings.Contains(got, "strconv") {
		t.Errorf("stderr: %s", got)
	}
}
