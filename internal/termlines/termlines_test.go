package termlines

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestReadPerTerminal(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "TMUX_PANE": "%3"}, "tmux capture-pane -p -J -S -3 -t %3"},
		{map[string]string{"KITTY_WINDOW_ID": "7"}, "kitty @ get-text --extent all --match id:7"},
		{map[string]string{"WEZTERM_PANE": "2"}, "wezterm cli get-text --pane-id 2 --start-line -3"},
	}
	for _, c := range cases {
		var ran string
		env := Env{
			Getenv: func(k string) string { return c.env[k] },
			Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
				ran = name + " " + strings.Join(args, " ")
				return []byte("one\ntwo\nthree\nfour  \n\n\n"), nil
			},
		}
		lines, _, err := Read(context.Background(), env, 3)
		if err != nil || ran != c.want || lines != "two\nthree\nfour" {
			t.Errorf("%v: ran %q, lines %q, %v", c.env, ran, lines, err)
		}
	}
	_, _, err := Read(context.Background(), Env{Getenv: func(string) string { return "" }}, 5)
	if !errors.Is(err, ErrNoTerminal) || !strings.Contains(err.Error(), "tmux, kitty") {
		t.Errorf("no terminal: %v", err)
	}
	got := Block("a\nb", 2)
	if got != "Terminal Context (Last 2 lines):\n```\na\nb\n```" {
		t.Errorf("block %q", got)
	}
}
