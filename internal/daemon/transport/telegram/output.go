package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/askygo/asky/internal/daemon"
)

// MaxMessage is Telegram's limit on one message's text.
const MaxMessage = 4096

// typingEvery renews the typing action, which clients show for 5 s.
const typingEvery = 4 * time.Second

// output sends one answer: typing while the turn runs, a status message
// (only once the answer takes longer than StatusDelay) edited with
// progress, then the answer, whose status message is deleted.
type output struct {
	t     *Transport
	chat  int64
	start time.Time

	mu       sync.Mutex
	statusID int
	pending  string // the latest status line not shown yet
	quit     chan struct{}
	stopOnce sync.Once
}

var _ daemon.ChatOutput = (*output)(nil)

func (t *Transport) newOutput(chat int64) *output {
	o := &output{t: t, chat: chat, start: t.o.Now(), quit: make(chan struct{})}
	go o.typing()
	return o
}

// typing shows "typing…" until the answer is sent, and shows the status
// line held back during StatusDelay once the delay is over.
func (o *output) typing() {
	ctx := context.Background()
	delay := time.NewTimer(o.t.o.StatusDelay)
	defer delay.Stop()
	tick := time.NewTicker(typingEvery)
	defer tick.Stop()
	for {
		_, _ = o.t.b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: o.chat, Action: models.ChatActionTyping})
		select {
		case <-o.quit:
			return
		case <-delay.C:
			o.mu.Lock()
			line := o.pending
			o.mu.Unlock()
			if line != "" {
				o.Status(ctx, line)
			}
			<-tick.C
		case <-tick.C:
		}
	}
}

func (o *output) stop() { o.stopOnce.Do(func() { close(o.quit) }) }

// Status shows or edits the status message, after StatusDelay.
func (o *output) Status(ctx context.Context, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.t.o.Now().Sub(o.start) < o.t.o.StatusDelay {
		o.pending = text
		return
	}
	o.pending = ""
	if o.statusID == 0 {
		m, err := o.t.send(ctx, o.chat, text, false)
		if err == nil {
			o.statusID = m.ID
		}
		return
	}
	_ = retry(ctx, func() error {
		_, err := o.t.b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: o.chat, MessageID: o.statusID, Text: text})
		return err
	})
}

// Final deletes the status message and sends the answer in pieces.
func (o *output) Final(ctx context.Context, text string, failed bool) {
	o.stop()
	o.mu.Lock()
	sid := o.statusID
	o.statusID = -1 // no more status
	o.mu.Unlock()
	if sid > 0 {
		_ = retry(ctx, func() error {
			_, err := o.t.b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: o.chat, MessageID: sid})
			return err
		})
	}
	if err := o.t.sendAll(ctx, o.chat, text, !failed); err != nil {
		fmt.Fprintf(o.t.o.Log, "telegram: answer to chat %d %v\n", o.chat, err)
	}
}

// sendAll sends text in pieces of at most MaxMessage characters,
// stopping at the first piece that cannot go out.
func (t *Transport) sendAll(ctx context.Context, chat int64, text string, html bool) error {
	parts := daemon.Split(text, MaxMessage, 0)
	for i, part := range parts {
		if _, err := t.send(ctx, chat, part, html); err != nil {
			return fmt.Errorf("(part %d of %d) not delivered: %w", i+1, len(parts), err)
		}
	}
	return nil
}

// Deliver sends markdown text unprompted (a scheduled job's answer) to a
// chat the allowlist admits: a chat in allowed_chats, or the private chat
// of a user in allowed_users (whose chat id is the user id). It is
// converted and split as an answer; a failure is returned for the caller
// to record.
func (t *Transport) Deliver(ctx context.Context, to, text string) error {
	chat, err := strconv.ParseInt(to, 10, 64)
	if err != nil {
		return fmt.Errorf("refused to deliver to telegram:%s: only numeric chat ids listed in [daemon.telegram] allowed_chats or allowed_users can receive answers", to)
	}
	if !slices.Contains(t.o.AllowedChats, chat) && !slices.Contains(t.o.AllowedUsers, chat) {
		return fmt.Errorf("refused to deliver to telegram:%d: not in [daemon.telegram] allowed_chats or allowed_users", chat)
	}
	if err := t.sendAll(ctx, chat, text, true); err != nil {
		return fmt.Errorf("telegram:%d %w", chat, err)
	}
	return nil
}

// send sends text, as HTML converted from markdown when html is set; if
// Telegram cannot parse the HTML it is sent again as plain text.
func (t *Transport) send(ctx context.Context, chat int64, text string, html bool) (*models.Message, error) {
	p := &bot.SendMessageParams{ChatID: chat, Text: text}
	if html {
		p.Text, p.ParseMode = HTML(text), models.ParseModeHTML
	}
	var m *models.Message
	err := retry(ctx, func() (err error) { m, err = t.b.SendMessage(ctx, p); return err })
	if err != nil && html && errors.Is(err, bot.ErrorBadRequest) {
		p.Text, p.ParseMode = text, ""
		err = retry(ctx, func() (err error) { m, err = t.b.SendMessage(ctx, p); return err })
	}
	return m, err
}

// retry calls f again after a 429's retry_after (at most 3 times, each
// wait capped at a minute).
func retry(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		err := f()
		var tm *bot.TooManyRequestsError
		if err == nil || !errors.As(err, &tm) || attempt == 3 {
			return err
		}
		wait := min(time.Duration(max(tm.RetryAfter, 1))*time.Second, time.Minute)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
