package telegram

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"
)

// target is where an answer goes: the chat, the forum topic the question
// was asked in (else the answer lands in the General topic), and in a
// group the question it answers, so the asker sees it is theirs.
type target struct {
	chat   int64
	thread int
	reply  int
}

func targetOf(m *models.Message) target {
	to := target{chat: m.Chat.ID}
	if m.IsTopicMessage {
		to.thread = m.MessageThreadID
	}
	if m.Chat.Type != models.ChatTypePrivate {
		to.reply = m.ID
	}
	return to
}

// chatAllowed admits a chat in allowed_chats, or the supergroup such a
// group became.
func (t *Transport) chatAllowed(chat int64) bool {
	if slices.Contains(t.o.AllowedChats, chat) {
		return true
	}
	return slices.ContainsFunc(t.journal.migratedFrom(chat), func(from int64) bool { return slices.Contains(t.o.AllowedChats, from) })
}

// chatID is the id to send to for chat: the supergroup it became, if it
// did.
func (t *Transport) chatID(chat int64) int64 { return t.journal.migratedTo(chat) }

// migrate records that a group became a supergroup with a new id, and
// says once how to keep the config in step.
func (t *Transport) migrate(from, to int64) {
	if from == 0 || to == 0 || from == to || !t.journal.migration(from, to) {
		return
	}
	fmt.Fprintf(t.o.Log, "telegram: group %d became supergroup %d; it is admitted as the group was and answers go there: replace %d with %d in [daemon.telegram] allowed_chats\n", from, to, from, to)
}

// migrated takes the service message Telegram sends when a group becomes
// a supergroup (in both chats); true means m is one.
func (t *Transport) migrated(m *models.Message) bool {
	from, to := m.Chat.ID, m.MigrateToChatID
	if m.MigrateFromChatID != 0 {
		from, to = m.MigrateFromChatID, m.Chat.ID
	}
	if to == 0 {
		return false
	}
	if slices.Contains(t.o.AllowedChats, from) {
		t.migrate(from, to)
	}
	return true
}

func (t *Transport) botName() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.username
}

// addressed is false for a command addressed to another bot
// ("/help@other_bot" in a group where several bots listen).
func (t *Transport) addressed(m *models.Message) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(m.Text), " ")
	cmd, name, ok := strings.Cut(first, "@")
	if !ok || !strings.HasPrefix(cmd, "/") {
		return true
	}
	me := t.botName()
	return me == "" || strings.EqualFold(strings.TrimSpace(strings.SplitN(name, "\n", 2)[0]), me)
}

// command undoes what Telegram adds to text: a leading "@this_bot"
// mention and the "@this_bot" suffix of a command in a group; /start,
// which clients send when a chat with the bot opens, asks for /help.
func (t *Transport) command(text string) string {
	s := strings.TrimSpace(text)
	if me := t.botName(); me != "" && len(s) > len(me) && strings.EqualFold(s[:len(me)+1], "@"+me) {
		if rest := s[len(me)+1:]; rest == "" || strings.ContainsRune(" \n,:", rune(rest[0])) {
			s = strings.TrimLeft(rest, " \n,:")
		}
	}
	if !strings.HasPrefix(s, "/") {
		if s == strings.TrimSpace(text) {
			return text
		}
		return s
	}
	end := strings.IndexAny(s, " \n")
	if end < 0 {
		end = len(s)
	}
	first, rest := s[:end], s[end:]
	first, _, _ = strings.Cut(first, "@")
	if strings.EqualFold(first, "/start") {
		return "/help"
	}
	return first + rest
}
