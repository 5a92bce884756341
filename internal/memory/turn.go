package memory

import (
	"context"
	"fmt"
	"strings"
)

// TurnMemory is what memory contributes to one question.
type TurnMemory struct {
	// Query is the question without a global-memory trigger prefix.
	Query string
	// Saved is set when a trigger prefix saved a global memory.
	Saved *SaveResult
	// SavedText is what was saved.
	SavedText string
	// Recalled are the memories quoted in the user message, best first.
	Recalled []Match
	// Section is the quoted block of recalled memories ("" if none).
	Section string
	// Notices are user-facing problems: memory never fails a turn.
	Notices []string
}

// PrepareTurn runs memory's part of a turn before the first model call:
// a global-memory trigger prefix is stripped from query and its statements
// saved as a global memory, then the memories relevant to the question
// (global and sessionID's) are recalled. With memory disabled, a trigger
// prefix is still stripped so it never reaches the model, and nothing is
// read or written. Only a cancelled ctx is returned as an error.
func (s *Service) PrepareTurn(ctx context.Context, query string, sessionID int64) (TurnMemory, error) {
	tm := TurnMemory{Query: query}
	if rest, trigger, ok := StripTrigger(query, s.cfg.GlobalTriggers); ok {
		switch fact := TriggerFact(rest); {
		case rest == "":
			tm.Notices = append(tm.Notices, fmt.Sprintf("nothing to remember after %q", trigger))
		case !s.cfg.Enabled:
			tm.Query = rest
			tm.Notices = append(tm.Notices, "memory is disabled ([memory] enabled = false); nothing was remembered")
		case fact == "":
			tm.Query = rest
			tm.Notices = append(tm.Notices, "nothing to remember: the text after the trigger is only questions")
		default:
			tm.Query = rest
			res, err := s.Save(ctx, fact, nil, 0)
			if err != nil {
				if ctx.Err() != nil {
					return tm, ctx.Err()
				}
				tm.Notices = append(tm.Notices, "could not remember that: "+err.Error())
				break
			}
			tm.Saved, tm.SavedText = &res, fact
		}
	}
	if !s.cfg.Enabled {
		return tm, nil
	}
	matches, err := s.Recall(ctx, tm.Query, sessionID)
	if err != nil {
		if ctx.Err() != nil {
			return tm, ctx.Err()
		}
		tm.Notices = append(tm.Notices, "memory recall skipped: "+err.Error())
		return tm, nil
	}
	tm.Recalled, tm.Section = matches, Format(matches)
	return tm, nil
}

// Describe is a one-line account of the recalled memories for -v.
func (tm TurnMemory) Describe() string {
	if len(tm.Recalled) == 0 {
		return ""
	}
	used := make([]string, len(tm.Recalled))
	for i, m := range tm.Recalled {
		used[i] = fmt.Sprintf("#%d %q (%.2f)", m.Memory.ID, OneLine(m.Memory.Text, 60), m.Score)
	}
	noun := "memories"
	if len(used) == 1 {
		noun = "memory"
	}
	return fmt.Sprintf("recalled %d %s: %s", len(used), noun, strings.Join(used, ", "))
}

// SavedNotice is the notice for a trigger save ("" if none).
func (tm TurnMemory) SavedNotice() string {
	if tm.Saved == nil {
		return ""
	}
	if tm.Saved.Unconfirmed {
		return fmt.Sprintf("held for the owner's confirmation (memory %d, not used until `asky memory confirm %d`): %s", tm.Saved.ID, tm.Saved.ID, OneLine(tm.SavedText, 80))
	}
	verb := "remembered"
	if tm.Saved.Updated {
		verb = "updated"
	}
	return fmt.Sprintf("%s globally (memory %d): %s", verb, tm.Saved.ID, OneLine(tm.SavedText, 80))
}
