package xmpp

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"slices"
	"sync"
	"time"

	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"

	"github.com/askygo/asky/internal/config"
)

// rooms are the group chats bound through an invite from an allowed JID;
// they are persisted so a restart rejoins them. The file is a JSON list
// of room JIDs, or {"jid", "password"} objects for rooms the invitation
// gave a password for.
type rooms struct {
	path string

	mu        sync.Mutex
	names     []string
	passwords map[string]string
	// nicks are the nicknames in use where the configured one was taken
	// (in memory: each connect tries the configured nick first).
	nicks map[string]string
}

func loadRooms(path string) (*rooms, error) {
	r := &rooms{path: path, nicks: map[string]string{}, passwords: map[string]string{}}
	var entries []json.RawMessage
	if _, err := config.ReadJSONFile(path, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range entries {
		var room savedRoom
		if err := json.Unmarshal(e, &room.JID); err != nil {
			if err := json.Unmarshal(e, &room); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		r.names = append(r.names, room.JID)
		if room.Password != "" {
			r.passwords[room.JID] = room.Password
		}
	}
	return r, nil
}

// savedRoom is a room with a password in the rooms file.
type savedRoom struct {
	JID      string `json:"jid"`
	Password string `json:"password"`
}

func (r *rooms) password(room string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.passwords[room]
}

func (r *rooms) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

func (r *rooms) has(room string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.names, room)
}

// nick is the nickname the bot uses in room (def unless it was taken).
func (r *rooms) nick(room, def string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := r.nicks[room]; n != "" {
		return n
	}
	return def
}

func (r *rooms) setNick(room, nick string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if nick == "" {
		delete(r.nicks, room)
	} else {
		r.nicks[room] = nick
	}
}

// add binds room (with the invitation's password, if any) and saves
// the list; it reports whether room is new.
func (r *rooms) add(room, password string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	known := slices.Contains(r.names, room)
	if known && (password == "" || password == r.passwords[room]) {
		return false, nil
	}
	if !known {
		r.names = append(r.names, room)
	}
	if password != "" {
		r.passwords[room] = password
	}
	return !known, r.save()
}

// remove unbinds room (destroyed, or the bot banned) and saves the list.
func (r *rooms) remove(room string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.names, room)
	if i < 0 {
		return nil
	}
	r.names = slices.Delete(r.names, i, i+1)
	delete(r.nicks, room)
	delete(r.passwords, room)
	return r.save()
}

// save writes the list atomically; the caller holds mu.
func (r *rooms) save() error {
	if r.path == "" {
		return nil
	}
	entries := make([]any, len(r.names))
	for i, n := range r.names {
		entries[i] = n
		if pw := r.passwords[n]; pw != "" {
			entries[i] = savedRoom{JID: n, Password: pw}
		}
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(r.path, b)
}

// invited binds and joins room when the invitation comes from an allowed
// JID; other invitations are dropped like any unauthorized message.
func (t *Transport) invited(from jid.JID, room, password string) {
	if !t.authorized(from) {
		return
	}
	rj, err := jid.Parse(room)
	if err != nil || rj.Localpart() == "" {
		fmt.Fprintf(t.o.Log, "xmpp: invitation from %s to a malformed room %q ignored\n", from, room)
		return
	}
	rj = rj.Bare()
	added, err := t.rooms.add(rj.String(), password)
	if err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: could not save the room list: %v\n", err)
	}
	if added {
		fmt.Fprintf(t.o.Log, "xmpp: joining %s (invited by %s)\n", rj, from.Bare())
	}
	t.mu.Lock()
	s := t.sess
	t.mu.Unlock()
	if s != nil {
		go t.join(t.runCtx(), s, rj.String())
	}
}

// mucJoin is the presence payload that joins a room: with the history
// since the bot last saw it, or none for a room never seen.
type mucJoin struct {
	XMLName xml.Name `xml:"http://jabber.org/protocol/muc x"`
	History struct {
		MaxStanzas int    `xml:"maxstanzas,attr"`
		Since      string `xml:"since,attr,omitempty"`
	} `xml:"history"`
	Password string `xml:"password,omitempty"`
}

// join sends the join presence to room/nick.
func (t *Transport) join(ctx context.Context, s *xmpp.Session, room string) {
	rj, err := jid.Parse(room)
	if err == nil {
		rj, err = rj.WithResource(t.rooms.nick(room, t.nick()))
	}
	if err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: cannot join %s: %v\n", room, err)
		return
	}
	p := struct {
		stanza.Presence
		X mucJoin
	}{Presence: stanza.Presence{To: rj}}
	p.X.Password = t.rooms.password(room)
	if since, ok := t.historySince(room); ok {
		p.X.History.MaxStanzas, p.X.History.Since = lateFetch, since.Format(time.RFC3339)
	}
	if err := s.Encode(writeCtx(ctx), p); err != nil {
		t.dropHistory(room)
		fmt.Fprintf(t.o.Log, "xmpp: joining %s: %v\n", room, err)
	}
}
