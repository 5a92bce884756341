package xmpp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/config"
)

// roomSeen remembers, per bound room, when the bot last saw it and which
// questions addressed to it were already answered, so a rejoin asks the
// room only for the history it missed and answers each missed question
// once. It is a JSON file beside the rooms file (the rooms are the
// transport's own state, not the store's): {"room@conf": {"seen": …,
// "answered": {"key": stamp}}}.
type roomSeen struct {
	path string
	now  func() time.Time

	mu    sync.Mutex
	rooms map[string]*seenRoom
	saved time.Time // last write; seen times are written at most every seenSaveEvery
	dirty bool
}

type seenRoom struct {
	Seen time.Time `json:"seen"`
	// Answered are the keys (see messageKey) of the questions answered or
	// skipped, with when they were asked; kept lateKeep.
	Answered map[string]time.Time `json:"answered,omitempty"`
}

// seenSaveEvery bounds how often a busy room rewrites the file. A crash
// loses at most that much of "seen": the rejoin then fetches a little
// more history, and the answered keys keep it from being answered twice.
const seenSaveEvery = 30 * time.Second

// seenPath is the file beside roomsFile ("" keeps it in memory).
func seenPath(roomsFile string) string {
	if roomsFile == "" {
		return ""
	}
	return strings.TrimSuffix(roomsFile, ".json") + "-seen.json"
}

func loadSeen(path string, now func() time.Time) (*roomSeen, error) {
	s := &roomSeen{path: path, now: now, rooms: map[string]*seenRoom{}}
	if _, err := config.ReadJSONFile(path, &s.rooms); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it: the bot then only misses the history of its downtime)", path, err)
	}
	for k, r := range s.rooms {
		if r == nil {
			delete(s.rooms, k)
		}
	}
	return s, nil
}

func (s *roomSeen) room(name string) *seenRoom {
	r := s.rooms[name]
	if r == nil {
		r = &seenRoom{Answered: map[string]time.Time{}}
		s.rooms[name] = r
	}
	if r.Answered == nil {
		r.Answered = map[string]time.Time{}
	}
	return r
}

// lastSeen is when the bot last saw room; false for a room never seen.
func (s *roomSeen) lastSeen(room string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rooms[room]
	if r == nil || r.Seen.IsZero() {
		return time.Time{}, false
	}
	return r.Seen, true
}

// saw moves room's seen time forward to at; the file is written when the
// last write is older than seenSaveEvery.
func (s *roomSeen) saw(room string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.room(room)
	if !at.After(r.Seen) {
		return nil
	}
	r.Seen = at
	s.dirty = true
	if s.now().Sub(s.saved) < seenSaveEvery {
		return nil
	}
	return s.save()
}

// answered reports whether the question key of room was handled.
func (s *roomSeen) answered(room, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rooms[room]
	if r == nil {
		return false
	}
	_, ok := r.Answered[key]
	return ok
}

// markAnswered records the questions handled in room (asked at their
// times) and writes the file at once: an answer must not be given again
// after a crash.
func (s *roomSeen) markAnswered(room string, keys map[string]time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.room(room)
	for k, at := range keys {
		r.Answered[k] = at
	}
	s.dirty = true
	return s.save()
}

// forget drops an unbound room.
func (s *roomSeen) forget(room string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.rooms[room]; !ok {
		return nil
	}
	delete(s.rooms, room)
	s.dirty = true
	return s.save()
}

// flush writes what saw kept in memory.
func (s *roomSeen) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	return s.save()
}

// save prunes answered keys older than lateKeep and writes the file
// atomically; the caller holds mu.
func (s *roomSeen) save() error {
	now := s.now()
	s.saved, s.dirty = now, false
	for _, r := range s.rooms {
		for k, at := range r.Answered {
			if now.Sub(at) > lateKeep {
				delete(r.Answered, k)
			}
		}
	}
	if s.path == "" {
		return nil
	}
	b, err := json.Marshal(s.rooms)
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(s.path, b)
}
