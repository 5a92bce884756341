package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Target is where a job's answer goes: file:PATH, xmpp:JID or
// telegram:CHAT (a numeric chat id; CHAT:TOPIC for a forum topic).
type Target struct {
	Kind string
	Addr string
}

func (t Target) String() string { return t.Kind + ":" + t.Addr }

var (
	jidRe  = regexp.MustCompile(`^[^@/\s]+@[^@/\s]+\.[^@/\s]+(/\S+)?$`)
	chatRe = regexp.MustCompile(`^-?\d+(:[1-9]\d*)?$`)
)

// ParseTarget checks a --notify value; a file path is made absolute
// (against cwd) so the daemon writes where the user meant.
func ParseTarget(s, cwd string) (Target, error) {
	kind, addr, ok := strings.Cut(s, ":")
	addr = strings.TrimSpace(addr)
	if !ok || addr == "" {
		return Target{}, fmt.Errorf("--notify %q: want file:PATH, xmpp:JID or telegram:CHAT", s)
	}
	switch kind {
	case "file":
		if !filepath.IsAbs(addr) {
			addr = filepath.Join(cwd, addr)
		}
		if fi, err := os.Stat(filepath.Dir(addr)); err != nil || !fi.IsDir() {
			return Target{}, fmt.Errorf("--notify %q: directory %s does not exist", s, filepath.Dir(addr))
		}
	case "xmpp":
		if !jidRe.MatchString(addr) {
			return Target{}, fmt.Errorf("--notify %q: %q is not a JID (user@example.org)", s, addr)
		}
	case "telegram":
		if !chatRe.MatchString(addr) {
			// The daemon delivers only to chats its allowlist names, and
			// allowed_chats holds numeric ids: a @channel could never pass.
			return Target{}, fmt.Errorf("--notify %q: %q is not a numeric chat id (as listed in [daemon.telegram] allowed_chats or allowed_users), or CHAT:TOPIC for a forum topic", s, addr)
		}
	default:
		return Target{}, fmt.Errorf("--notify %q: unknown kind %q; want file:PATH, xmpp:JID or telegram:CHAT", s, kind)
	}
	return Target{Kind: kind, Addr: addr}, nil
}

// Message is a job's answer as delivered.
type Message struct {
	JobID    int64
	Question string
	Answer   string
	At       time.Time
}

// ChatText is the answer as one chat message in markdown: a header
// naming the job and its question (the reader did not just ask it), then
// the answer.
func (m Message) ChatText() string {
	return fmt.Sprintf("**Job %d:** %s\n\n%s", m.JobID, strings.TrimSpace(m.Question), strings.TrimSpace(m.Answer))
}

// Notifier delivers a job's answer to targets of one kind. The daemon's
// chat transports implement it for xmpp: and telegram:.
type Notifier interface {
	Notify(ctx context.Context, to Target, m Message) error
}

// NotifierFunc adapts a function.
type NotifierFunc func(ctx context.Context, to Target, m Message) error

// Notify calls f.
func (f NotifierFunc) Notify(ctx context.Context, to Target, m Message) error { return f(ctx, to, m) }

// FileNotifier appends each answer to the target file as a markdown
// section, in one write so concurrent jobs never interleave.
var FileNotifier = NotifierFunc(func(_ context.Context, to Target, m Message) error {
	f, err := os.OpenFile(to.Addr, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("## %s · job %d: %s\n\n%s\n\n", m.At.Format("2006-01-02 15:04"), m.JobID, m.Question, strings.TrimSpace(m.Answer))
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
})

// NotAvailableError is a target whose transport this process does not
// run.
type NotAvailableError struct{ Target Target }

func (e *NotAvailableError) Error() string {
	return fmt.Sprintf("notify target %s not available: transport not configured", e.Target)
}
