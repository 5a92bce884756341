// Package clipboard copies text to, and reads it from, the system
// clipboard through the usual command-line tools, falling back to the OSC 52
// terminal escape (which also works over SSH and inside tmux).
package clipboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Env is what the clipboard needs from the process.
type Env struct {
	Getenv func(string) string
	// Terminal receives the OSC 52 sequence when no tool works; nil (or a
	// non-terminal) disables the fallback.
	Terminal io.Writer
}

type tool struct {
	name string
	args []string
	// need is an environment variable that must be set (display servers).
	need string
}

// toolTimeout bounds one run of a clipboard tool, so a tool that never
// returns cannot hang the command.
const toolTimeout = 5 * time.Second

// lookup returns the tool's path when it can run here: the display server
// it needs is set and it is installed.
func (t tool) lookup(env Env) (string, bool) {
	if t.need != "" && env.Getenv(t.need) == "" {
		return "", false
	}
	path, err := exec.LookPath(t.name)
	return path, err == nil
}

func copyTools(goos string) []tool {
	switch goos {
	case "darwin":
		return []tool{{name: "pbcopy"}}
	case "windows":
		return []tool{{name: "clip.exe"}}
	}
	return []tool{
		{name: "wl-copy", need: "WAYLAND_DISPLAY"},
		{name: "xclip", args: []string{"-selection", "clipboard"}, need: "DISPLAY"},
		{name: "xsel", args: []string{"--clipboard", "--input"}, need: "DISPLAY"},
		{name: "clip.exe"}, // WSL
	}
}

func pasteTools(goos string) []tool {
	switch goos {
	case "darwin":
		return []tool{{name: "pbpaste"}}
	case "windows":
		return []tool{{name: "powershell.exe", args: []string{"-NoProfile", "-Command", "Get-Clipboard"}}}
	}
	return []tool{
		{name: "wl-paste", args: []string{"--no-newline"}, need: "WAYLAND_DISPLAY"},
		{name: "xclip", args: []string{"-selection", "clipboard", "-o"}, need: "DISPLAY"},
		{name: "xsel", args: []string{"--clipboard", "--output"}, need: "DISPLAY"},
	}
}

// ErrUnavailable means no clipboard tool worked and OSC 52 was not possible.
var ErrUnavailable = errors.New("no clipboard tool found (install wl-clipboard, xclip or xsel) and the terminal cannot receive OSC 52")

// Copy puts text on the clipboard and returns how ("xclip", "OSC 52").
func Copy(ctx context.Context, env Env, text string) (string, error) {
	var errs []string
	for _, t := range copyTools(runtime.GOOS) {
		path, ok := t.lookup(env)
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, toolTimeout)
		cmd := exec.CommandContext(ctx, path, t.args...)
		cmd.Stdin = strings.NewReader(text)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err == nil {
			return t.name, nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v %s", t.name, err, strings.TrimSpace(stderr.String())))
	}
	if env.Terminal != nil {
		if _, err := io.WriteString(env.Terminal, OSC52(text, env.Getenv("TMUX") != "")); err == nil {
			return "OSC 52", nil
		}
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%w (%s)", ErrUnavailable, strings.Join(errs, "; "))
	}
	return "", ErrUnavailable
}

// Paste reads the clipboard text.
func Paste(ctx context.Context, env Env) (string, error) {
	for _, t := range pasteTools(runtime.GOOS) {
		path, ok := t.lookup(env)
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, toolTimeout)
		out, err := exec.CommandContext(ctx, path, t.args...).Output()
		cancel()
		if err == nil {
			return string(out), nil
		}
	}
	return "", errors.New("no clipboard tool could read the clipboard")
}

// OSC52 is the escape sequence that asks the terminal to set its clipboard;
// inside tmux it is wrapped in a DCS passthrough.
func OSC52(text string, tmux bool) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
	if tmux {
		return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}
