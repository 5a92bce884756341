package custom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/askygo/asky/internal/config"
)

// bundled is the original asky's user.toml tool section, as shipped.
const bundled = `
[tool.list_dir]
command = "ls {flags} {path}"
description = "List the contents of a directory."
parameter_type = "object"
[tool.list_dir.parameters]
type = "object"
required = ["path"]

[tool.list_dir.parameters.properties.path]
type = "string"
default = "."

[tool.list_dir.parameters.properties.flags]
type = "string"
default = "-la"

[tool.grep_search]
command = "grep -r --exclude-dir={.venv,node_modules} {pattern} {path}"
description = "Search for a pattern in files recursively."

[tool.grep_search.parameters]
type = "object"
required = ["pattern"]

[tool.grep_search.parameters.properties.pattern]
type = "string"
description = "The regex pattern to search for."

[tool.grep_search.parameters.properties.path]
type = "string"
description = "The directory path to search in."
default = "."
`

func bundledSpecs(t *testing.T, dir string) map[string]*Spec {
	t.Helper()
	var cfg struct {
		Tool map[string]config.CustomTool `toml:"tool"`
	}
	if _, err := toml.Decode(bundled, &cfg); err != nil {
		t.Fatal(err)
	}
	out := map[string]*Spec{}
	for name, c := range cfg.Tool {
		c.WorkingDir = dir
		s, err := Parse(name, c, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

func TestBundledTemplatesArgv(t *testing.T) {
	specs := bundledSpecs(t, "")
	cases := []struct {
		tool string
		args string
		want []string
	}{
		{"list_dir", `{}`, []string{"ls", "-la", "--", "."}},
		{"list_dir", `{"path":"src","flags":"-1"}`, []string{"ls", "-1", "--", "src"}},
		{"list_dir", `{"path":"x","flags":""}`, []string{"ls", "--", "x"}},
		{"grep_search", `{"pattern":"TODO"}`, []string{"grep", "-r", "--exclude-dir=.venv", "--exclude-dir=node_modules", "--", "TODO", "."}},
		// Brace patterns in argument values are data, never expanded.
		{"grep_search", `{"pattern":"{a,b}","path":"{c,d}"}`, []string{"grep", "-r", "--exclude-dir=.venv", "--exclude-dir=node_modules", "--", "{a,b}", "{c,d}"}},
	}
	for _, c := range cases {
		var m map[string]any
		_ = json.Unmarshal([]byte(c.args), &m)
		got, err := specs[c.tool].Argv(m)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s = %q, %v; want %q", c.tool, c.args, got, err, c.want)
		}
	}
	if _, err := specs["grep_search"].Argv(map[string]any{}); err == nil || !strings.Contains(err.Error(), `"pattern"`) {
		t.Errorf("missing required pattern: %v", err)
	}
	if _, err := specs["grep_search"].Argv(map[string]any{"pattern": "x", "bogus": "y"}); err == nil {
		t.Error("unknown argument accepted")
	}
}

func TestSplitTemplate(t *testing.T) {
	cases := map[string][]string{
		`a b  c`:                 {"a", "b", "c"},
		`a 'b c' "d e"`:          {"a", "b c", "d e"},
		`a "x\"y" 'it''s'`:       {"a", `x"y`, "its"},
		`a b\ c ""`:              {"a", "b c", ""},
		`echo {a,b}x '{c,d}'`:    {"echo", "ax", "bx", "{c,d}"},
		`seq {1..3}`:             {"seq", "1", "2", "3"},
		`x --e={.venv,nm} {p}`:   {"x", "--e=.venv", "--e=nm", "{p}"},
		`x {a,b}{1,2}`:           {"x", "a1", "a2", "b1", "b2"},
		`cmd $(id) ; rm -rf ~ |`: {"cmd", "$(id)", ";", "rm", "-rf", "~", "|"},
	}
	for in, want := range cases {
		ws, err := splitTemplate(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got []string
		for _, w := range ws {
			for _, e := range expandBraces(w) {
				got = append(got, e.String())
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("split %q = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`, `a \`} {
		if _, err := splitTemplate(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestInjectionStaysLiteral runs the bundled tools and a printing tool
// with hostile arguments. Were a shell involved, the canary file would
// appear; each value must reach the program as one literal argument.
func TestInjectionStaysLiteral(t *testing.T) {
	dir := t.TempDir()
	canary := filepath.Join(dir, "CANARY")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\n-rf line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"; touch " + canary,
		"$(touch " + canary + ")",
		"`touch " + canary + "`",
		"| touch " + canary,
		"&& touch " + canary,
		"x\ntouch " + canary,
		"'; touch " + canary + "; '",
		`"; touch ` + canary + `; "`,
		"$(touch${IFS}" + canary + ")",
		"-exec touch " + canary + " ;",
		"--output=" + canary,
		"> " + canary,
		"{a,b}; touch " + canary,
		"~/$HOME/*",
	}
	specs := bundledSpecs(t, dir)
	printArgs, err := Parse("print_args", config.CustomTool{Command: []any{"printf", "[%s]\n", "{text}"}, EndOfOptions: ptr(false),
		Parameters: map[string]any{"properties": map[string]any{"text": map[string]any{"type": "string"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hostile {
		for _, call := range []struct {
			spec *Spec
			args map[string]any
		}{
			{specs["list_dir"], map[string]any{"path": h}},
			{specs["grep_search"], map[string]any{"pattern": h}},
			{specs["grep_search"], map[string]any{"pattern": "alpha", "path": h}},
			{printArgs, map[string]any{"text": h}},
		} {
			res, err := call.spec.run(context.Background(), mustJSON(call.args))
			if _, statErr := os.Stat(canary); statErr == nil {
				t.Fatalf("%s with %q created the canary", call.spec.Name, h)
			}
			if call.spec == printArgs {
				if strings.HasPrefix(h, "-") {
					if err == nil {
						t.Errorf("print_args accepted leading-dash %q without end_of_options", h)
					}
					continue
				}
				var out Output
				_ = json.Unmarshal([]byte(res.Content), &out)
				if err != nil || out.Stdout != "["+h+"]\n" {
					t.Errorf("print_args %q: stdout %q, err %v", h, out.Stdout, err)
				}
			}
		}
	}
	// A leading dash is data: "--" makes grep search for "-rf".
	res, err := specs["grep_search"].run(context.Background(), mustJSON(map[string]any{"pattern": "-rf"}))
	if err != nil || !strings.Contains(res.Content, "-rf line") {
		t.Errorf("grep -rf: %s %v", res.Content, err)
	}
}

func TestExecLimits(t *testing.T) {
	s, err := Parse("slow", config.CustomTool{Command: "sleep 5", Timeout: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	s.Timeout = 200 * time.Millisecond
	t0 := time.Now()
	out, err := s.Exec(context.Background(), []string{"sleep", "5"})
	if err != nil || !out.TimedOut || time.Since(t0) > 3*time.Second {
		t.Errorf("timeout: %+v %v after %s", out, err, time.Since(t0))
	}
	big, _ := Parse("big", config.CustomTool{Command: "head -c 100000 /dev/zero", MaxOutputBytes: 1000}, "")
	res, err := big.run(context.Background(), nil)
	var o Output
	_ = json.Unmarshal([]byte(res.Content), &o)
	if err != nil || len(o.Stdout) != 1000 || !o.Truncated {
		t.Errorf("cap: %d bytes, truncated %v, %v", len(o.Stdout), o.Truncated, err)
	}
	fail, _ := Parse("fail", config.CustomTool{Command: []any{"ls", "/nonexistent-dir-xyz"}}, "")
	res, _ = fail.run(context.Background(), nil)
	if !strings.Contains(res.Content, `"exit_code":2`) || !strings.Contains(res.Content, "nonexistent") {
		t.Errorf("exit status: %s", res.Content)
	}
	missing, _ := Parse("missing", config.CustomTool{Command: "no-such-program-xyz"}, "")
	if _, err := missing.run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing program: %v", err)
	}
}

func TestParseErrorsAndRemote(t *testing.T) {
	bad := map[string]config.CustomTool{
		"no_cmd":      {},
		"bad quote":   {Command: "ls 'x"},
		"ph_program":  {Command: "{prog} x", Parameters: map[string]any{"properties": map[string]any{"prog": map[string]any{}}}},
		"unknown_ph":  {Command: "ls {nope}"},
		"bad_req":     {Command: "ls", Parameters: map[string]any{"required": []any{"x"}}},
		"num_command": {Command: int64(3)},
	}
	for name, c := range bad {
		if _, err := Parse(name, c, ""); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	off := false
	cfg := map[string]config.CustomTool{
		"local":    {Command: "ls"},
		"shared":   {Command: "ls", Remote: true},
		"disabled": {Command: "ls", Enabled: &off},
		"broken":   {Command: "ls 'x"},
	}
	names := func(ss []*Spec) (out []string) {
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	got, errs := Tools(cfg, "", false)
	if !reflect.DeepEqual(names(got), []string{"local", "shared"}) || len(errs) != 1 {
		t.Errorf("local: %v %v", names(got), errs)
	}
	got, _ = Tools(cfg, "", true)
	if !reflect.DeepEqual(names(got), []string{"shared"}) {
		t.Errorf("remote: %v", names(got))
	}
}

func ptr[T any](v T) *T { return &v }

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
