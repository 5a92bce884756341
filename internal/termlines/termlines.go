// Package termlines reads the last lines of the terminal asky runs in, for
// -tl: from tmux (capture-pane), kitty (kitty @ get-text, needs remote
// control) or WezTerm (wezterm cli get-text), whichever the environment
// shows. The original read iTerm2 only.
package termlines

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Supported names the terminals Read understands, for error messages.
const Supported = "tmux, kitty (with remote control) or WezTerm"

// ErrNoTerminal means no supported terminal was detected.
var ErrNoTerminal = errors.New("reading terminal lines needs " + Supported + "; none detected (TMUX, KITTY_WINDOW_ID and WEZTERM_PANE are unset)")

// Env is what Read needs from the process: the environment and a way to
// run a program and collect its stdout.
type Env struct {
	Getenv func(string) string
	// Run runs name with args; nil runs the real program.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Read returns the last n lines of the current terminal and the terminal
// it read them from.
func Read(ctx context.Context, env Env, n int) (lines, from string, err error) {
	if n <= 0 {
		return "", "", fmt.Errorf("terminal lines must be positive, got %d", n)
	}
	run := env.Run
	if run == nil {
		run = runProgram
	}
	back := strconv.Itoa(-n)
	var name string
	var args []string
	switch {
	case env.Getenv("TMUX") != "":
		name, args = "tmux", []string{"capture-pane", "-p", "-J", "-S", back}
		if p := env.Getenv("TMUX_PANE"); p != "" {
			args = append(args, "-t", p)
		}
	case env.Getenv("KITTY_WINDOW_ID") != "":
		name, args = "kitty", []string{"@", "get-text", "--extent", "all", "--match", "id:" + env.Getenv("KITTY_WINDOW_ID")}
	case env.Getenv("WEZTERM_PANE") != "":
		name, args = "wezterm", []string{"cli", "get-text", "--pane-id", env.Getenv("WEZTERM_PANE"), "--start-line", back}
	default:
		return "", "", ErrNoTerminal
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := run(ctx, name, args...)
	if err != nil {
		return "", name, fmt.Errorf("reading terminal lines from %s: %w", name, err)
	}
	return lastLines(string(out), n), name, nil
}

// lastLines keeps the last n lines, without trailing blank ones (the empty
// rest of the screen).
func lastLines(s string, n int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	ls := strings.Split(strings.TrimRight(s, " \t\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(ls, "\n")
}

// Block frames the lines as context sent with a question. It travels
// beside the question (as piped stdin does), not inside it: the original
// prepended it to the query, which then showed in history and hid a
// leading "remember globally:" from the memory trigger.
func Block(lines string, n int) string {
	return fmt.Sprintf(BlockHeader+"%d lines):\n```\n%s\n```", n, lines)
}

// BlockHeader starts every Block, so a stored turn's input can tell
// terminal lines from piped stdin.
const BlockHeader = "Terminal Context (Last "

// Sources reports what a turn's stored input holds: piped stdin, terminal
// lines, or both (stdin comes first, the terminal block last).
func Sources(input string) (piped, terminal bool) {
	if input == "" {
		return false, false
	}
	if strings.HasPrefix(input, BlockHeader) {
		return false, true
	}
	i := strings.LastIndex(input, "\n\n"+BlockHeader)
	return true, i >= 0 && strings.HasSuffix(input, "```")
}

func runProgram(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s is not on PATH", name)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return nil, err
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
