package memory

import (
	"context"
	"unicode/utf8"

	"github.com/askygo/asky/internal/store"
)

// Update replaces the text and tags of an existing memory and re-embeds
// it, keeping its id and scope (an edit of MEMORY.md).
func (s *Service) Update(ctx context.Context, m *store.Memory, text string, tags []string) error {
	text = clean(text)
	switch {
	case text == "":
		return ErrEmpty
	case utf8.RuneCountInString(text) > MaxTextLen:
		return ErrTooLong
	}
	vec, model, err := s.embedOne(ctx, text)
	if err != nil {
		return err
	}
	m.Text, m.Tags, m.Embedding, m.EmbeddingModel = text, CleanTags(tags), vec, model
	_, err = s.store.SaveMemory(ctx, m)
	return err
}
