package clipboard

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func env(vars map[string]string, term *bytes.Buffer) Env {
	e := Env{Getenv: func(k string) string { return vars[k] }}
	if term != nil {
		e.Terminal = term
	}
	return e
}

func TestCopyUsesToolThenOSC52(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tool order is Linux's")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "copied")
	os.WriteFile(filepath.Join(dir, "xclip"), []byte("#!/bin/sh\ncat > "+out+"\n"), 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin:/bin")
	how, err := Copy(context.Background(), env(map[string]string{"DISPLAY": ":0"}, nil), "hello")
	if err != nil || how != "xclip" {
		t.Fatalf("copy: %q %v", how, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "hello" {
		t.Fatalf("copied %q", b)
	}
	// No display: the tool is skipped and OSC 52 is written.
	var term bytes.Buffer
	how, err = Copy(context.Background(), env(nil, &term), "hi")
	if err != nil || how != "OSC 52" || term.String() != "\x1b]52;c;aGk=\a" {
		t.Fatalf("osc52: %q %v %q", how, err, term.String())
	}
	// Nothing works: a clear error.
	if _, err := Copy(context.Background(), env(nil, nil), "x"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("unavailable: %v", err)
	}
	// A failing tool is reported.
	os.WriteFile(filepath.Join(dir, "xclip"), []byte("#!/bin/sh\necho 'cannot open display' >&2\nexit 1\n"), 0o755)
	if _, err := Copy(context.Background(), env(map[string]string{"DISPLAY": ":0"}, nil), "x"); err == nil || !strings.Contains(err.Error(), "cannot open display") {
		t.Fatalf("failing tool: %v", err)
	}
}

func TestOSC52Tmux(t *testing.T) {
	if got := OSC52("a", true); got != "\x1bPtmux;\x1b\x1b]52;c;YQ==\a\x1b\\" {
		t.Errorf("%q", got)
	}
}

func TestPasteUsesAToolItsDisplayAllows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tool order is Linux's")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "xclip"), []byte("#!/bin/sh\nprintf pasted\n"), 0o755)
	t.Setenv("PATH", dir)
	got, err := Paste(context.Background(), env(map[string]string{"DISPLAY": ":0"}, nil))
	if err != nil || got != "pasted" {
		t.Fatalf("paste: %q %v", got, err)
	}
	// No display server: xclip is not tried, and nothing else is installed.
	if got, err := Paste(context.Background(), env(nil, nil)); err == nil {
		t.Fatalf("paste without a display: %q", got)
	}
}
