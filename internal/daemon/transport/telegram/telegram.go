// Package telegram is the daemon's Telegram transport: long polling
// through github.com/go-telegram/bot with the offset kept in a journal
// (a restart never answers an update twice or skips one), allowlists of
// user and chat ids, a typing action and a status message edited with
// progress, and answers in Telegram's HTML subset split at 4096
// characters. Routing and queues belong to daemon.Chat and
// daemon.Service.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/askygo/asky/internal/daemon"
)

// Name is the transport's name on the status board.
const Name = "telegram"

// Options configure a Transport.
type Options struct {
	Token  string
	APIURL string
	// AllowedUsers and AllowedChats admit a message when its sender or
	// its chat is listed.
	AllowedUsers, AllowedChats []int64
	Chat                       *daemon.Chat
	Board                      *daemon.Board
	// OffsetFile is the update journal.
	OffsetFile string
	Log        io.Writer
	// PollTimeout is the long poll's length; zero uses 30 s.
	PollTimeout time.Duration
	// StatusDelay suppresses the status message for an answer that comes
	// quickly (Jeeves: the first seconds); zero uses 3 s.
	StatusDelay time.Duration
	// HTTPClient is the transport for API calls; nil uses the default.
	HTTPClient http.RoundTripper
	Now        func() time.Time
}

// Transport is one bot.
type Transport struct {
	o       Options
	b       *bot.Bot
	journal *journal
	disp    daemon.Dispatcher

	mu        sync.Mutex
	dropped   map[int64]time.Time
	runCtx    context.Context
	lastErr   string
	lastErrAt time.Time
}

// New checks the options and builds the client; nothing is fetched
// until Run.
func New(o Options) (*Transport, error) {
	if o.Token == "" {
		return nil, errors.New("no Telegram bot token: set the variable named by daemon.telegram.token_env, or token_cmd")
	}
	if len(o.AllowedUsers) == 0 && len(o.AllowedChats) == 0 {
		return nil, errors.New("daemon.telegram allows nobody: set allowed_users (your user id) or allowed_chats")
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 30 * time.Second
	}
	if o.StatusDelay <= 0 {
		o.StatusDelay = 3 * time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	j, err := openJournal(o.OffsetFile)
	if err != nil {
		return nil, err
	}
	t := &Transport{o: o, journal: j, dropped: map[int64]time.Time{}, runCtx: context.Background()}
	rt := o.HTTPClient
	if rt == nil {
		rt = http.DefaultTransport
	}
	client := &http.Client{Timeout: o.PollTimeout + 10*time.Second, Transport: &observer{rt: rt, t: t}}
	t.b, err = bot.New(o.Token,
		bot.WithServerURL(strings.TrimRight(o.APIURL, "/")),
		bot.WithSkipGetMe(),
		bot.WithHTTPClient(o.PollTimeout, client),
		bot.WithInitialOffset(j.offset()),
		bot.WithAllowedUpdates(bot.AllowedUpdates{"message"}),
		bot.WithDefaultHandler(t.handle),
		// Updates are taken in order (the journal relies on it); the
		// answers run on the dispatcher.
		bot.WithNotAsyncHandlers(),
		bot.WithErrorsHandler(t.pollError),
		bot.WithDebugHandler(func(string, ...any) {}),
	)
	if err != nil {
		return nil, err
	}
	if o.Board != nil {
		o.Board.Register(Name, "telegram:")
	}
	return t, nil
}

// Run polls until ctx ends, then waits for the answers in flight (their
// turns are interrupted and say so).
func (t *Transport) Run(ctx context.Context) error {
	t.mu.Lock()
	t.runCtx = ctx
	t.mu.Unlock()
	t.setState(daemon.StateStarting, nil)
	// Updates accepted but never answered (the daemon was killed) are
	// answered now, before new ones.
	for _, u := range t.journal.pending() {
		t.dispatch(ctx, u)
	}
	t.b.Start(ctx)
	t.disp.Wait()
	t.setState(daemon.StateStopped, nil)
	return nil
}

func (t *Transport) setState(state string, err error) {
	if t.o.Board != nil {
		t.o.Board.Set(Name, state, err)
	}
}

// pollError records a polling failure: 409 means another poller uses
// the token, anything else is usually the network. The library retries
// with a capped backoff.
func (t *Transport) pollError(err error) {
	switch {
	case errors.Is(err, bot.ErrorConflict):
		err = fmt.Errorf("another program is polling this bot token (409 conflict); stop it or use a webhook-free bot: %w", err)
	case errors.Is(err, bot.ErrorUnauthorized):
		err = errors.New("the Telegram Bot API refused the bot token (401 unauthorized); check the variable named by daemon.telegram.token_env or token_cmd (the token @BotFather gave)")
	}
	t.setState(daemon.StateReconnecting, err)
	// The library retries every few seconds: log a failure when it
	// changes or once a minute, not on every retry.
	now := t.o.Now()
	t.mu.Lock()
	repeat := err.Error() == t.lastErr && now.Sub(t.lastErrAt) < time.Minute
	if !repeat {
		t.lastErr, t.lastErrAt = err.Error(), now
	}
	t.mu.Unlock()
	if !repeat {
		fmt.Fprintf(t.o.Log, "telegram: %v\n", err)
	}
}

// observer marks the transport connected whenever a getUpdates call
// succeeds, so the board shows recovery after a network drop.
type observer struct {
	rt http.RoundTripper
	t  *Transport
}

func (ob *observer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := ob.rt.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusOK && strings.HasSuffix(r.URL.Path, "/getUpdates") {
		ob.t.setState(daemon.StateConnected, nil)
	}
	return resp, err
}

// handle is the library's update handler, called in update order; it
// must not block.
func (t *Transport) handle(_ context.Context, _ *bot.Bot, u *models.Update) {
	if !t.journal.accept(u) {
		return // answered before a restart
	}
	t.mu.Lock()
	runCtx := t.runCtx
	t.mu.Unlock()
	t.dispatch(runCtx, u)
}

// dispatch answers an accepted update after the chat's earlier ones.
func (t *Transport) dispatch(ctx context.Context, u *models.Update) {
	m := u.Message
	if m == nil || !t.authorized(m) {
		t.journal.done(u.ID)
		return
	}
	key := strconv.FormatInt(m.Chat.ID, 10)
	if !t.disp.Go(key, func() { defer t.journal.done(u.ID); t.process(ctx, m) }) {
		out := t.newOutput(m.Chat.ID)
		out.Final(ctx, "Busy: earlier questions in this chat are still waiting; ask again when they are answered.", true)
		t.journal.done(u.ID)
	}
}

// process answers one message.
func (t *Transport) process(ctx context.Context, m *models.Message) {
	out := t.newOutput(m.Chat.ID)
	defer out.stop()
	switch {
	case m.Voice != nil || m.Audio != nil:
		if !t.o.Chat.CanTranscribe() {
			out.Final(ctx, daemon.VoiceUnsupported, true)
			return
		}
		id := ""
		if m.Voice != nil {
			id = m.Voice.FileID
		} else {
			id = m.Audio.FileID
		}
		if u, ok := t.fileURL(ctx, id, out); ok {
			t.o.Chat.Voice(ctx, conv(m), u, out)
		}
		return
	case len(m.Photo) > 0:
		if !t.o.Chat.CanDescribe() {
			out.Final(ctx, daemon.ImageUnsupported, true)
			return
		}
		if u, ok := t.fileURL(ctx, largestPhoto(m.Photo).FileID, out); ok {
			t.o.Chat.Image(ctx, conv(m), u, m.Caption, out)
		}
		return
	case m.VideoNote != nil || m.Video != nil:
		out.Final(ctx, "Videos are not supported yet by this version; send the question as text.", true)
		return
	case m.Document != nil:
		t.upload(ctx, m, out)
		return
	case strings.TrimSpace(m.Text) == "":
		return
	}
	text := m.Text
	// A "yes" replying to the bot's question must stay a bare "yes".
	if r := m.ReplyToMessage; r != nil && strings.TrimSpace(r.Text) != "" && !daemon.LooksLikeCommand(text) && !t.o.Chat.AwaitsAnswer(ctx, conv(m), text) {
		text = "[Replying to: " + truncate(r.Text, 300) + "]\n\n" + text
	}
	t.o.Chat.Handle(ctx, daemon.ChatMessage{Conversation: conv(m), Text: text}, out)
}

// truncate cuts s to n runes, marking the cut.
func truncate(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// authorized admits listed users and chats; others are logged once per
// hour each.
func (t *Transport) authorized(m *models.Message) bool {
	var user int64
	if m.From != nil {
		user = m.From.ID
	}
	if (user != 0 && slices.Contains(t.o.AllowedUsers, user)) || slices.Contains(t.o.AllowedChats, m.Chat.ID) {
		return true
	}
	now := t.o.Now()
	t.mu.Lock()
	last, seen := t.dropped[user]
	log := !seen || now.Sub(last) >= time.Hour
	if log {
		t.dropped[user] = now
	}
	t.mu.Unlock()
	if log {
		fmt.Fprintf(t.o.Log, "telegram: dropped a message from user %d in chat %d (not in allowed_users or allowed_chats)\n", user, m.Chat.ID)
	}
	return false
}

// conv is the conversation (session) name of m's chat.
func conv(m *models.Message) string { return "telegram:" + strconv.FormatInt(m.Chat.ID, 10) }

// fileURL is the download URL of a file id; on failure it answers out.
func (t *Transport) fileURL(ctx context.Context, id string, out *output) (string, bool) {
	f, err := t.b.GetFile(ctx, &bot.GetFileParams{FileID: id})
	if err != nil {
		out.Final(ctx, "Error: could not get the file from Telegram: "+err.Error(), true)
		return "", false
	}
	return t.b.FileDownloadLink(f), true
}

// largestPhoto is the biggest size Telegram offers within the media cap.
func largestPhoto(sizes []models.PhotoSize) models.PhotoSize {
	best := sizes[0]
	for _, p := range sizes[1:] {
		if p.FileSize <= daemon.MaxMediaBytes && p.Width*p.Height > best.Width*best.Height {
			best = p
		}
	}
	return best
}

// upload hands a document to the chat's uploads through its file URL.
// One too large to accept is refused by its declared size, in the same
// one line as the uploads' own refusals, without downloading it.
func (t *Transport) upload(ctx context.Context, m *models.Message, out *output) {
	if d := m.Document; d.FileSize > daemon.MaxUploadBytes {
		name := d.FileName
		if name == "" {
			name = "the document"
		}
		out.Final(ctx, fmt.Sprintf("✗ %s: too large (%d MB; the limit is %d MB)", name, d.FileSize>>20, daemon.MaxUploadBytes>>20), true)
		return
	}
	if u, ok := t.fileURL(ctx, m.Document.FileID, out); ok {
		if m.Document.FileName != "" {
			u += "#" + url.PathEscape(m.Document.FileName) // the name the sender knows (daemon.Uploads)
		}
		t.o.Chat.Upload(ctx, conv(m), []string{u}, out)
	}
}
