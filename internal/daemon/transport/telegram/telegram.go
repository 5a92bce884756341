// Package telegram is the daemon's Telegram transport: long polling
// through github.com/go-telegram/bot with the offset kept in a journal
// (a restart never answers an update twice or skips one), allowlists of
// user and chat ids, a typing action and a status message edited with
// progress, and answers in Telegram's HTML subset split within 4096
// UTF-16 units (split.go). In groups an answer replies to its question,
// in the question's forum topic. Errors are taken as the Bot API
// documents them: 429 waits retry_after, 409 (another poller, a webhook)
// backs off, 401/404 (the token) stop the transport, a group upgraded to
// a supergroup is followed. Each forum topic is a conversation of its
// own (conv), with its own session and queue. Routing and queues belong
// to daemon.Chat and daemon.Service.
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
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
	// username is the bot's (getMe), to tell "/help@this_bot" from a
	// command for another bot in a group; "" if getMe failed.
	username string
	// stopPoll ends polling on a failure no retry fixes (fatal).
	stopPoll context.CancelFunc
	fatal    error
	// conflicts counts 409s since the last good poll: the first is
	// logged, and each waits longer so two pollers do not take turns
	// stealing each other's updates.
	conflicts int
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
// A refused token (401, or 404 for one not shaped like a token) stops
// it with an error: no retry can fix that.
func (t *Transport) Run(ctx context.Context) error {
	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	t.mu.Lock()
	t.runCtx, t.stopPoll = ctx, stopPoll
	t.mu.Unlock()
	t.setState(daemon.StateStarting, nil)
	me, err := t.b.GetMe(ctx)
	switch {
	case errors.Is(err, bot.ErrorUnauthorized), errors.Is(err, bot.ErrorNotFound):
		err = refusal(err)
		t.setState(daemon.StateFailed, err)
		return err
	case err != nil && ctx.Err() == nil:
		// Polling retries; commands addressed to a bot are taken as ours.
		fmt.Fprintf(t.o.Log, "telegram: getMe failed (%v); polling anyway\n", err)
	case err == nil:
		t.mu.Lock()
		t.username = me.Username
		t.mu.Unlock()
	}
	// Updates accepted but never answered (the daemon was killed) are
	// answered now, before new ones.
	for _, u := range t.journal.pending() {
		t.dispatch(ctx, u)
	}
	t.b.Start(pollCtx)
	t.disp.Wait()
	t.mu.Lock()
	fatal := t.fatal
	t.mu.Unlock()
	if fatal != nil {
		t.setState(daemon.StateFailed, fatal)
		return fatal
	}
	t.setState(daemon.StateStopped, nil)
	return nil
}

var (
	errTokenRefused = errors.New("the Telegram Bot API refused the bot token (401 unauthorized); check the variable named by daemon.telegram.token_env or token_cmd (the token @BotFather gave)")
	// The API answers 404 to a token not shaped like one ("123:abc…").
	errTokenUnknown = errors.New("the Telegram Bot API does not know this bot token (404 not found); check the variable named by daemon.telegram.token_env or token_cmd (the token @BotFather gave, like 123456:ABC…) and daemon.telegram.api_url")
)

// refusal is the error that stops the transport for a 401 or 404.
func refusal(err error) error {
	if errors.Is(err, bot.ErrorNotFound) {
		return errTokenUnknown
	}
	return errTokenRefused
}

func (t *Transport) setState(state string, err error) {
	if t.o.Board != nil {
		t.o.Board.Set(Name, state, err)
	}
}

// pollError records a polling failure; the library calls it from the
// polling goroutine, so a wait here delays the next poll. A refused
// token (401 or 404) stops polling; 409 (another poller, or a webhook) is logged once
// and waits longer each time; 429 waits its retry_after; anything else
// (usually the network) is retried by the library with a capped backoff.
func (t *Transport) pollError(err error) {
	if !strings.HasPrefix(err.Error(), "error get updates") {
		// Not a poll failure (the library also reports closing
		// bodies and updates left at shutdown).
		return
	}
	t.mu.Lock()
	ctx, stop := t.runCtx, t.stopPoll
	t.mu.Unlock()
	var wait time.Duration
	var tm *bot.TooManyRequestsError
	switch {
	case errors.Is(err, bot.ErrorUnauthorized), errors.Is(err, bot.ErrorNotFound):
		t.mu.Lock()
		t.fatal = refusal(err)
		t.mu.Unlock()
		if stop != nil {
			stop()
		}
		return
	case errors.Is(err, bot.ErrorConflict):
		t.mu.Lock()
		t.conflicts++
		n := t.conflicts
		t.mu.Unlock()
		wait = min(time.Second<<min(n-1, 6), time.Minute)
		// The library's words before Telegram's description add nothing.
		desc := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "error get updates, "), "conflict, ")
		if strings.Contains(desc, "webhook") {
			err = fmt.Errorf("a webhook is set for this bot token, so it cannot be polled (409 conflict); remove it with the Bot API's deleteWebhook, then polling resumes (%s)", desc)
		} else {
			err = fmt.Errorf("another program is polling this bot token (409 conflict); stop it, or give this daemon its own bot from @BotFather (%s)", desc)
		}
		t.setState(daemon.StateReconnecting, err)
		if n == 1 {
			fmt.Fprintf(t.o.Log, "telegram: %v\n", err)
		}
	case errors.As(err, &tm):
		wait = min(time.Duration(max(tm.RetryAfter, 1))*time.Second, maxRetryAfter)
		fallthrough
	default:
		// A proxy's error page comes back whole in the error: keep it
		// one short line.
		if msg := strings.Join(strings.Fields(err.Error()), " "); msg != err.Error() || len(msg) > 300 {
			err = errors.New(truncate(msg, 300))
		}
		t.setState(daemon.StateReconnecting, err)
		t.logRepeated(err)
	}
	if wait > 0 && ctx != nil {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// logRepeated logs a failure when it changes or once a minute, not on
// every retry.
func (t *Transport) logRepeated(err error) {
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
// succeeds, so the board shows recovery after a network drop. It also
// sends each request body with its Content-Length: the library streams
// its forms chunked, which Bot API fakes, proxies and small servers
// that read Content-Length bytes refuse or read as empty.
type observer struct {
	rt http.RoundTripper
	t  *Transport
}

func (ob *observer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength <= 0 { // 0 with a body: unknown
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.ContentLength = int64(len(body))
		r.Body, r.GetBody = http.NoBody, nil // 0 bytes: a body of 0 would go chunked
		if len(body) > 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
	}
	resp, err := ob.rt.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasSuffix(r.URL.Path, "/getUpdates") {
		return resp, err
	}
	// An error is "ok": false whatever the HTTP status says.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var ok struct {
		OK bool `json:"ok"`
	}
	if json.Unmarshal(body, &ok) == nil && ok.OK {
		ob.t.mu.Lock()
		ob.t.conflicts = 0
		ob.t.mu.Unlock()
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

// dispatch answers an accepted update after its conversation's earlier
// ones: a forum topic does not wait behind another topic's answer.
func (t *Transport) dispatch(ctx context.Context, u *models.Update) {
	// Only messages are asked for (allowed_updates): edits, channel
	// posts and the rest are not questions.
	m := u.Message
	if m == nil || t.migrated(m) || !t.authorized(m) || !t.addressed(m) {
		t.journal.done(u.ID)
		return
	}
	if !t.disp.Go(conv(m), func() { defer t.journal.done(u.ID); t.process(ctx, m) }) {
		out := t.newOutput(targetOf(m))
		out.Final(ctx, "Busy: earlier questions in this conversation are still waiting; ask again when they are answered.", true)
		t.journal.done(u.ID)
	}
}

// process answers one message.
func (t *Transport) process(ctx context.Context, m *models.Message) {
	out := t.newOutput(targetOf(m))
	defer out.stop()
	switch {
	case m.Voice != nil || m.Audio != nil:
		if !t.o.Chat.CanTranscribe() {
			out.Final(ctx, daemon.VoiceUnsupported, true)
			return
		}
		id, size := "", int64(0)
		if m.Voice != nil {
			id, size = m.Voice.FileID, m.Voice.FileSize
		} else {
			id, size = m.Audio.FileID, m.Audio.FileSize
		}
		if size > min(daemon.MaxMediaBytes, MaxDownloadBytes) {
			out.Final(ctx, fmt.Sprintf("Error: the recording is too large (%d MB; the limit is %d MB).", size>>20, min(daemon.MaxMediaBytes, MaxDownloadBytes)>>20), true)
			return
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
		in := t.upload(ctx, m, out)
		// A caption is a question about the document, asked once it is
		// in (as an XMPP message's text beside its files); not when it
		// could not be read.
		if q := strings.TrimSpace(m.Caption); q != "" && in {
			out.stop()
			again := t.newOutput(targetOf(m))
			defer again.stop()
			t.o.Chat.Handle(ctx, daemon.ChatMessage{Conversation: conv(m), Text: q}, again)
		}
		return
	case strings.TrimSpace(m.Text) == "":
		return
	}
	text := t.command(m.Text)
	// A "yes" replying to the bot's question must stay a bare "yes".
	if r := m.ReplyToMessage; r != nil && strings.TrimSpace(r.Text+r.Caption) != "" && !daemon.LooksLikeCommand(text) && !t.o.Chat.AwaitsAnswer(ctx, conv(m), text) {
		text = "[Replying to: " + truncate(r.Text+r.Caption, 300) + "]\n\n" + text // a photo's words are its caption
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
	if (user != 0 && slices.Contains(t.o.AllowedUsers, user)) || t.chatAllowed(m.Chat.ID) {
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

// conv is the conversation (session) name of m: telegram:<chat>, or
// telegram:<chat>:<thread> for a message in a forum topic, so each topic
// keeps its own session, queue, overrides and open question. The General
// topic (its messages carry no thread) and a non-forum group, whose reply
// threads are not topics, stay telegram:<chat>, as before topics had
// their own.
func conv(m *models.Message) string {
	c := "telegram:" + strconv.FormatInt(m.Chat.ID, 10)
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		c += ":" + strconv.Itoa(m.MessageThreadID)
	}
	return c
}

// fileURL is the download URL of a file id; on failure it answers out.
func (t *Transport) fileURL(ctx context.Context, id string, out *output) (string, bool) {
	f, err := t.b.GetFile(ctx, &bot.GetFileParams{FileID: id})
	switch {
	case refused(err, "file is too big"):
		out.Final(ctx, fmt.Sprintf("Error: the file is too large: bots can download at most %d MB from Telegram.", MaxDownloadBytes>>20), true)
		return "", false
	case err != nil:
		out.Final(ctx, "Error: could not get the file from Telegram: "+err.Error(), true)
		return "", false
	case f.FilePath == "":
		out.Final(ctx, "Error: Telegram gave no download path for the file; send it again.", true)
		return "", false
	}
	return t.b.FileDownloadLink(f), true
}

// MaxDownloadBytes is the Bot API's limit on a file a bot downloads
// (getFile answers "file is too big" above it).
const MaxDownloadBytes = 20 << 20

// largestPhoto is the biggest size Telegram offers within the media cap
// and the download limit.
func largestPhoto(sizes []models.PhotoSize) models.PhotoSize {
	best := sizes[0]
	for _, p := range sizes[1:] {
		if p.FileSize <= min(daemon.MaxMediaBytes, MaxDownloadBytes) && p.Width*p.Height > best.Width*best.Height {
			best = p
		}
	}
	return best
}

// upload hands a document to the chat's uploads through its file URL.
// One too large to accept is refused by its declared size, in the same
// one line as the uploads' own refusals, without downloading it.
func (t *Transport) upload(ctx context.Context, m *models.Message, out *output) bool {
	if d, limit := m.Document, int64(min(daemon.MaxUploadBytes, MaxDownloadBytes)); d.FileSize > limit {
		name := d.FileName
		if name == "" {
			name = "the document"
		}
		out.Final(ctx, fmt.Sprintf("✗ %s: too large (%d MB; the limit is %d MB)", name, d.FileSize>>20, limit>>20), true)
		return false
	}
	u, ok := t.fileURL(ctx, m.Document.FileID, out)
	if !ok {
		return false
	}
	if m.Document.FileName != "" {
		u += "#" + url.PathEscape(m.Document.FileName) // the name the sender knows (daemon.Uploads)
	}
	return t.o.Chat.Upload(ctx, conv(m), []string{u}, out)
}
