package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SelectorForms names the accepted history selector forms; usage errors
// quote it so the user sees every form at once.
const SelectorForms = "an id (42), ~N for the N-th most recent turn (~1), a range (10-15 or ~1-~3) or a comma list of those (3,7,~2)"

// maxSelectorItems bounds a comma list; ranges cover bigger selections.
const maxSelectorItems = 1000

// HistorySelector is a parsed history selection: the items in the order the
// user wrote them.
type HistorySelector struct {
	Items []SelectorItem
}

// SelectorItem is one id, ~N, or range of either. From == To for a single
// item; From <= To always. For relative items, 1 is the most recent turn.
type SelectorItem struct {
	Relative bool
	From, To int64
}

// String writes the item back in selector syntax.
func (it SelectorItem) String() string {
	p := ""
	if it.Relative {
		p = "~"
	}
	if it.From == it.To {
		return p + strconv.FormatInt(it.From, 10)
	}
	return fmt.Sprintf("%s%d-%s%d", p, it.From, p, it.To)
}

// SelectorError is a selector that does not parse.
type SelectorError struct {
	Input  string
	Reason string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("invalid history selector %q: %s", e.Input, e.Reason)
}

// ParseHistorySelector parses SelectorForms. It is pure, so every odd input
// (~0, ~-1, 99999999999999999999, "1,,2") is decided here with a reason
// rather than reaching SQL.
func ParseHistorySelector(input string) (HistorySelector, error) {
	fail := func(reason string) (HistorySelector, error) {
		return HistorySelector{}, &SelectorError{Input: input, Reason: reason}
	}
	s := strings.TrimSpace(input)
	if s == "" {
		return fail("it is empty")
	}
	parts := strings.Split(s, ",")
	if len(parts) > maxSelectorItems {
		return fail(fmt.Sprintf("more than %d items; use a range instead", maxSelectorItems))
	}
	sel := HistorySelector{Items: make([]SelectorItem, 0, len(parts))}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			return fail("empty item in the list")
		}
		it, err := parseItem(part)
		if err != nil {
			return fail(err.Error())
		}
		sel.Items = append(sel.Items, it)
	}
	return sel, nil
}

func parseItem(part string) (SelectorItem, error) {
	if strings.HasPrefix(part, "~-") {
		return SelectorItem{}, fmt.Errorf("%q is negative; ~1 is the most recent turn", part)
	}
	// A '-' after the first character separates a range; a leading one is
	// a negative number, which no selector form allows.
	if i := strings.IndexByte(part[1:], '-'); i >= 0 {
		left, right := strings.TrimSpace(part[:i+1]), strings.TrimSpace(part[i+2:])
		lrel, from, err := parseEndpoint(left)
		if err != nil {
			return SelectorItem{}, err
		}
		rrel, to, err := parseEndpoint(right)
		if err != nil {
			return SelectorItem{}, err
		}
		if lrel != rrel {
			return SelectorItem{}, fmt.Errorf("range %q mixes ids and ~N; use 10-15 or ~1-~3", part)
		}
		if from > to {
			from, to = to, from
		}
		return SelectorItem{Relative: lrel, From: from, To: to}, nil
	}
	rel, n, err := parseEndpoint(part)
	if err != nil {
		return SelectorItem{}, err
	}
	return SelectorItem{Relative: rel, From: n, To: n}, nil
}

func parseEndpoint(s string) (relative bool, n int64, err error) {
	if rest, ok := strings.CutPrefix(s, "~"); ok {
		relative, s = true, rest
	}
	if s == "" {
		return false, 0, errors.New("a number is missing")
	}
	if s[0] == '-' {
		return false, 0, fmt.Errorf("%q is negative", s)
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false, 0, fmt.Errorf("%q is not a number", s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		return false, 0, fmt.Errorf("%s is too large", s)
	}
	if v == 0 {
		if relative {
			return false, 0, errors.New("~0 does not exist; ~1 is the most recent turn")
		}
		return false, 0, errors.New("history ids start at 1")
	}
	return relative, int64(v), nil
}
