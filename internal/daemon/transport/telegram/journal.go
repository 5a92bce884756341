package telegram

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/go-telegram/bot/models"

	"github.com/askygo/asky/internal/config"
)

// journal persists the polling offset and the updates accepted but not
// yet answered. Telegram forgets an update once a later offset is
// polled, so the journal, not the server, is what makes a restart
// neither answer twice (an update at or below the offset is skipped) nor
// skip (a pending update is answered at start).
type journal struct {
	path string

	mu    sync.Mutex
	state journalState
}

type journalState struct {
	Offset  int64                    `json:"offset"`
	Pending map[int64]*models.Update `json:"pending,omitempty"`
	// Migrated maps a group to the supergroup it became: Telegram
	// refuses the old id from then on.
	Migrated map[int64]int64 `json:"migrated,omitempty"`
}

func openJournal(path string) (*journal, error) {
	j := &journal{path: path, state: journalState{Pending: map[int64]*models.Update{}}}
	if _, err := config.ReadJSONFile(path, &j.state); err != nil {
		return nil, fmt.Errorf("telegram offset file %s: %w", path, err)
	}
	if j.state.Pending == nil {
		j.state.Pending = map[int64]*models.Update{}
	}
	return j, nil
}

// offset is the last update id accepted (the poller asks for the next).
func (j *journal) offset() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state.Offset
}

// accept records u as taken; false means it was taken before.
func (j *journal) accept(u *models.Update) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if u.ID <= j.state.Offset {
		return false
	}
	j.state.Offset = u.ID
	j.state.Pending[u.ID] = u
	j.save()
	return true
}

// done forgets a pending update once answered.
func (j *journal) done(id int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.state.Pending[id]; !ok {
		return
	}
	delete(j.state.Pending, id)
	j.save()
}

// migration records that chat from became chat to; false if known.
func (j *journal) migration(from, to int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state.Migrated[from] == to {
		return false
	}
	if j.state.Migrated == nil {
		j.state.Migrated = map[int64]int64{}
	}
	j.state.Migrated[from] = to
	j.save()
	return true
}

// migratedTo is the supergroup chat became, or chat.
func (j *journal) migratedTo(chat int64) int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	for range 4 { // a group migrates once; bound a corrupt cycle
		to, ok := j.state.Migrated[chat]
		if !ok {
			break
		}
		chat = to
	}
	return chat
}

// migratedFrom lists the chats that became chat.
func (j *journal) migratedFrom(chat int64) []int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []int64
	for from, to := range j.state.Migrated {
		if to == chat {
			out = append(out, from)
		}
	}
	return out
}

// pending returns the unanswered updates, oldest first.
func (j *journal) pending() []*models.Update {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*models.Update
	for _, u := range j.state.Pending {
		out = append(out, u)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// save writes the journal atomically; j.mu is held. A failed write is
// not fatal: the worst case is the original's (an update re-asked).
func (j *journal) save() {
	if j.path == "" {
		return
	}
	b, err := json.Marshal(j.state)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(j.path), 0o700)
	tmp := j.path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, j.path)
	}
}
