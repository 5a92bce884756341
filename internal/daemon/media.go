package daemon

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// MaxMediaBytes bounds one voice or image message (the OpenAI
// transcription endpoint's own limit).
const MaxMediaBytes = 25 << 20

// Replies to voice and image messages when no model is configured for
// them.
const (
	VoiceUnsupported = "Voice messages are not supported yet by this version; send the question as text (or set [daemon] transcription_model on the daemon's machine)."
	ImageUnsupported = "Images are not supported yet by this version; send the question as text (or set [daemon] vision_model on the daemon's machine)."
	// TranscriptsUnsupported answers the original's `transcript …`
	// commands: a transcript is shown once, with its yes/no question.
	TranscriptsUnsupported = "transcript list/show/use/clear are not supported by this version: it keeps no transcripts; a voice message's transcript is shown in the chat when it arrives (reply yes to ask it)."
)

// Media turns voice and image messages into questions through the
// configured models; a nil func leaves that kind unsupported.
type Media struct {
	// Transcribe returns the text spoken in audio; name is the file name
	// (its extension tells the format).
	Transcribe func(ctx context.Context, name string, audio []byte) (string, error)
	// Describe returns a description of image (of type mimeType) aimed at
	// the question asked about it.
	Describe func(ctx context.Context, mimeType string, image []byte, question string) (string, error)
}

// CanTranscribe reports whether voice messages are answered.
func (c *Chat) CanTranscribe() bool { return c.Media != nil && c.Media.Transcribe != nil }

// CanDescribe reports whether image messages are answered.
func (c *Chat) CanDescribe() bool { return c.Media != nil && c.Media.Describe != nil }

// MediaKind classifies an upload URL by its extension: "voice", "image"
// or "" (a document).
func MediaKind(raw string) string {
	pu, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	switch strings.ToLower(path.Ext(pu.Path)) {
	case ".ogg", ".oga", ".opus", ".m4a", ".mp3", ".wav", ".aac", ".webm", ".flac":
		return "voice"
	case ".jpg", ".jpeg", ".png", ".gif", ".webp":
		return "image"
	}
	return ""
}

// Voice answers the voice message at raw. The transcript is shown and
// asked only after the user says yes (the original's confirmation: speech
// recognition mishears, and a misheard question costs a model call and
// lands in the session); with AnswerTranscripts it is asked at once and
// the answer starts with it, so the user sees what was heard.
func (c *Chat) Voice(ctx context.Context, conversation, raw string, out ChatOutput) {
	if !c.CanTranscribe() {
		out.Final(ctx, VoiceUnsupported, true)
		return
	}
	out.Status(ctx, "🎙 Transcribing the voice message…")
	audio, _, err := c.download(ctx, raw, "audio")
	if err != nil {
		out.Final(ctx, "Error: the voice message: "+err.Error(), true)
		return
	}
	name := path.Base(raw)
	if ext := strings.ToLower(path.Ext(name)); ext == ".oga" || ext == ".opus" {
		name = strings.TrimSuffix(name, path.Ext(name)) + ".ogg" // what transcription APIs call Ogg
	}
	text, err := c.Media.Transcribe(ctx, name, audio)
	text = strings.TrimSpace(text)
	switch {
	case err != nil:
		out.Final(ctx, "Error: transcription failed: "+err.Error(), true)
		return
	case text == "":
		out.Final(ctx, "Error: no speech was recognised in the voice message.", true)
		return
	case len(text) > MaxChatMessage:
		text = text[:MaxChatMessage]
	}
	if c.AnswerTranscripts {
		c.askText(ctx, conversation, text, prefixed{ChatOutput: out, prefix: "🎙 “" + text + "”\n\n"})
		return
	}
	replaced, err := c.setPending(ctx, conversation, Confirmation{What: "the transcript", Question: text, No: "OK, dropped the transcript; nothing was asked."})
	if err != nil {
		out.Final(ctx, "Error: the transcript could not be kept for your yes: "+err.Error(), true)
		return
	}
	note := ""
	if replaced {
		note = " It replaces the earlier transcript, which was not asked."
	}
	out.Final(ctx, fmt.Sprintf("🎙 I heard: “%s”\n\nReply yes to ask this, or no to drop it (within %s).%s", text, minutes(c.confirmTTL()), note), false)
}

// Image answers an image with its caption (else "What is in this
// image?"): the vision model describes it for that question, and the
// description and the question are asked in the conversation, so later
// questions can refer to the image.
func (c *Chat) Image(ctx context.Context, conversation, raw, caption string, out ChatOutput) {
	if !c.CanDescribe() {
		out.Final(ctx, ImageUnsupported, true)
		return
	}
	out.Status(ctx, "🖼 Looking at the image…")
	img, mt, err := c.download(ctx, raw, "image")
	if err != nil {
		out.Final(ctx, "Error: the image: "+err.Error(), true)
		return
	}
	q := strings.TrimSpace(caption)
	if q == "" {
		q = "What is in this image?"
	}
	desc, err := c.Media.Describe(ctx, mt, img, q)
	if err != nil {
		out.Final(ctx, "Error: the vision model failed: "+err.Error(), true)
		return
	}
	question := "[The user sent an image; a vision model describes it as follows.]\n" + strings.TrimSpace(desc) + "\n\n" + q
	c.askText(ctx, conversation, question, out)
}

// download fetches a voice or image message (kind "audio" or "image")
// through the guarded client, capped at MaxMediaBytes; it returns the
// content's sniffed type for images.
func (c *Chat) download(ctx context.Context, raw, kind string) ([]byte, string, error) {
	resp, err := c.Uploads.get(ctx, raw, MaxMediaBytes)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && !strings.HasPrefix(mt, kind+"/") &&
		mt != "application/octet-stream" && !(kind == "audio" && (mt == "application/ogg" || mt == "video/webm")) {
		return nil, "", fmt.Errorf("the server says it is %s, not %s", mt, kind)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxMediaBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("download failed: %v", err)
	}
	if len(b) > MaxMediaBytes {
		return nil, "", fmt.Errorf("too large (over %d MB)", MaxMediaBytes>>20)
	}
	if kind != "image" {
		return b, "", nil
	}
	switch mt := http.DetectContentType(b); mt {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return b, mt, nil
	default:
		return nil, "", fmt.Errorf("the content is %s, not a JPEG, PNG, GIF or WebP image", mt)
	}
}

// prefixed puts a line before the final answer.
type prefixed struct {
	ChatOutput
	prefix string
}

func (p prefixed) Final(ctx context.Context, text string, failed bool) {
	p.ChatOutput.Final(ctx, p.prefix+text, failed)
}
