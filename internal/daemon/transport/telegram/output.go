package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/askygo/asky/internal/daemon"
)

// MaxMessage is Telegram's limit on one message's text, in UTF-16 code
// units after entity parsing.
const MaxMessage = 4096

// maxRetryAfter is the longest 429 wait honoured; a longer flood wait
// fails the call at once rather than hold the answer for minutes.
const maxRetryAfter = 5 * time.Minute

// typingEvery renews the typing action, which clients show for 5 s.
const typingEvery = 4 * time.Second

// output sends one answer: typing while the turn runs, a status message
// (only once the answer takes longer than StatusDelay) edited with
// progress, then the answer, whose status message is deleted.
type output struct {
	t     *Transport
	to    target
	start time.Time

	mu       sync.Mutex
	statusID int
	pending  string // the latest status line not shown yet
	quit     chan struct{}
	stopOnce sync.Once
}

var _ daemon.ChatOutput = (*output)(nil)

func (t *Transport) newOutput(to target) *output {
	o := &output{t: t, to: to, start: t.o.Now(), quit: make(chan struct{})}
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
		// Not retried: the next tick renews it anyway.
		_, _ = o.t.b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: o.t.chatID(o.to.chat), MessageThreadID: o.to.thread, Action: models.ChatActionTyping})
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
		m, err := o.t.send(ctx, o.to, text, false)
		if err == nil {
			o.statusID = m.ID
		}
		return
	}
	// Not retried after a 429: waiting would hold the answer back, and
	// the next progress line edits it again.
	_, _ = o.t.b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: o.t.chatID(o.to.chat), MessageID: o.statusID, Text: text})
}

// Final deletes the status message and sends the answer in pieces.
func (o *output) Final(ctx context.Context, text string, failed bool) {
	o.stop()
	o.mu.Lock()
	sid := o.statusID
	o.statusID = -1 // no more status
	o.mu.Unlock()
	if sid > 0 {
		_ = o.t.call(ctx, o.to.chat, func(chat int64) error {
			_, err := o.t.b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: chat, MessageID: sid})
			return err
		})
	}
	if err := o.t.sendAll(ctx, o.to, text, !failed); err != nil {
		fmt.Fprintf(o.t.o.Log, "telegram: answer to chat %d %v\n", o.to.chat, err)
	}
}

// sendAll sends text in parts that fit MaxMessage, stopping at the
// first part that cannot go out. Only the first part replies to the
// question.
func (t *Transport) sendAll(ctx context.Context, to target, text string, html bool) error {
	parts := splitMessage(text, MaxMessage)
	if len(parts) == 0 {
		parts = []string{"(the answer was empty)"} // Telegram refuses an empty message
	}
	for i, part := range parts {
		if err := t.sendPart(ctx, to, part, html); err != nil {
			return fmt.Errorf("(part %d of %d) not delivered: %w", i+1, len(parts), err)
		}
		to.reply = 0
	}
	return nil
}

// sendPart sends one part; should Telegram still find it too long (it
// counts after its own entity parsing), it is cut in halves.
func (t *Transport) sendPart(ctx context.Context, to target, part string, html bool) error {
	_, err := t.send(ctx, to, part, html)
	half := cost(part) / 2
	if err == nil || !refused(err, "message is too long") || half < 32 {
		return err
	}
	for _, p := range splitMessage(part, half) {
		if err := t.sendPart(ctx, to, p, html); err != nil {
			return err
		}
		to.reply = 0
	}
	return nil
}

// Deliver sends markdown text unprompted (a scheduled job's answer) to a
// chat the allowlist admits: a chat in allowed_chats, or the private chat
// of a user in allowed_users (whose chat id is the user id). "CHAT:TOPIC",
// as in a topic's conversation name, sends to that forum topic. It is
// converted and split as an answer; a failure is returned for the caller
// to record.
func (t *Transport) Deliver(ctx context.Context, to, text string) error {
	chatText, topicText, inTopic := strings.Cut(to, ":")
	chat, err := strconv.ParseInt(chatText, 10, 64)
	topic := 0
	if err == nil && inTopic {
		topic, err = strconv.Atoi(topicText)
		if topic <= 0 {
			err = errors.New("not a topic id")
		}
	}
	if err != nil {
		return fmt.Errorf("refused to deliver to telegram:%s: only numeric chat ids listed in [daemon.telegram] allowed_chats or allowed_users (or CHAT:TOPIC for a forum topic of such a chat) can receive answers", to)
	}
	if !t.chatAllowed(chat) && !slices.Contains(t.o.AllowedUsers, chat) {
		return fmt.Errorf("refused to deliver to telegram:%s: not in [daemon.telegram] allowed_chats or allowed_users", to)
	}
	if err := t.sendAll(ctx, target{chat: chat, thread: topic}, text, true); err != nil {
		return fmt.Errorf("telegram:%s %w", to, err)
	}
	return nil
}

// send sends text, as HTML converted from markdown when html is set;
// if Telegram cannot parse the HTML, or it shows no text (an empty code
// block), it is sent again as plain text.
func (t *Transport) send(ctx context.Context, to target, text string, html bool) (*models.Message, error) {
	p := &bot.SendMessageParams{MessageThreadID: to.thread, Text: text}
	if to.reply != 0 {
		// The question may be deleted meanwhile: answer anyway.
		p.ReplyParameters = &models.ReplyParameters{MessageID: to.reply, AllowSendingWithoutReply: true}
	}
	if html {
		p.Text, p.ParseMode = HTML(text), models.ParseModeHTML
	}
	var m *models.Message
	sendMessage := func(chat int64) (err error) {
		p.ChatID = chat
		m, err = t.b.SendMessage(ctx, p)
		return err
	}
	err := t.call(ctx, to.chat, sendMessage)
	if err != nil && p.MessageThreadID != 0 && refused(err, "thread not found") {
		// The topic was deleted meanwhile: answer in the chat.
		p.MessageThreadID = 0
		err = t.call(ctx, to.chat, sendMessage)
	}
	if err != nil && html && (refused(err, "can't parse entities") || refused(err, "text is empty")) {
		p.Text, p.ParseMode = text, ""
		err = t.call(ctx, to.chat, sendMessage)
	}
	return m, err
}

// refused tells a 400 Bad Request whose description says why.
func refused(err error, why string) bool {
	return errors.Is(err, bot.ErrorBadRequest) && strings.Contains(err.Error(), why)
}

// call runs one API call for chat: to the supergroup a group became
// (Telegram answers the old id with migrate_to_chat_id, remembered for
// the next calls), again after a 429's retry_after.
func (t *Transport) call(ctx context.Context, chat int64, f func(chat int64) error) error {
	err := retry(ctx, func() error { return f(t.chatID(chat)) })
	var me *bot.MigrateError
	if errors.As(err, &me) && me.MigrateToChatID != 0 {
		t.migrate(chat, int64(me.MigrateToChatID))
		err = retry(ctx, func() error { return f(t.chatID(chat)) })
	}
	return err
}

// retry calls f again after a 429's retry_after (at most 3 times); a
// wait longer than maxRetryAfter fails at once. Calling again before
// retry_after only prolongs the flood wait.
func retry(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		err := f()
		var tm *bot.TooManyRequestsError
		if err == nil || !errors.As(err, &tm) || attempt == 3 {
			return err
		}
		wait := time.Duration(max(tm.RetryAfter, 1)) * time.Second
		if wait > maxRetryAfter {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
