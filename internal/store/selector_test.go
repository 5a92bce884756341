package store

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseHistorySelector(t *testing.T) {
	abs := func(a, b int64) SelectorItem { return SelectorItem{From: a, To: b} }
	rel := func(a, b int64) SelectorItem { return SelectorItem{Relative: true, From: a, To: b} }
	tests := []struct {
		in   string
		want []SelectorItem
		err  string // substring of the reason; "" = valid
	}{
		{in: "42", want: []SelectorItem{abs(42, 42)}},
		{in: " 42 ", want: []SelectorItem{abs(42, 42)}},
		{in: "~1", want: []SelectorItem{rel(1, 1)}},
		{in: "10-15", want: []SelectorItem{abs(10, 15)}},
		{in: "15-10", want: []SelectorItem{abs(10, 15)}},
		{in: "10 - 15", want: []SelectorItem{abs(10, 15)}},
		{in: "~1-~3", want: []SelectorItem{rel(1, 3)}},
		{in: "~3-~1", want: []SelectorItem{rel(1, 3)}},
		{in: "3,7,9", want: []SelectorItem{abs(3, 3), abs(7, 7), abs(9, 9)}},
		{in: "3, ~2 ,10-12", want: []SelectorItem{abs(3, 3), rel(2, 2), abs(10, 12)}},
		{in: "9223372036854775807", want: []SelectorItem{abs(1<<63-1, 1<<63-1)}},
		{in: "~9223372036854775807", want: []SelectorItem{rel(1<<63-1, 1<<63-1)}},
		{in: "1-9223372036854775807", want: []SelectorItem{abs(1, 1<<63-1)}},
		{in: "", err: "empty"},
		{in: "   ", err: "empty"},
		{in: "~0", err: "~1 is the most recent"},
		{in: "0", err: "start at 1"},
		{in: "~-1", err: "negative"},
		{in: "-1", err: "negative"},
		{in: "5--1", err: "negative"},
		{in: "~", err: "missing"},
		{in: "1-", err: "missing"},
		{in: "1-~", err: "missing"},
		{in: "1,,2", err: "empty item"},
		{in: "1,", err: "empty item"},
		{in: "abc", err: "not a number"},
		{in: "4x", err: "not a number"},
		{in: "+4", err: "not a number"},
		{in: "1.5", err: "not a number"},
		{in: "1-2-3", err: "not a number"},
		{in: "~1-3", err: "mixes"},
		{in: "1-~3", err: "mixes"},
		{in: "~~1", err: "not a number"},
		{in: "9223372036854775808", err: "too large"},
		{in: "99999999999999999999999999", err: "too large"},
		{in: "~99999999999999999999", err: "too large"},
		{in: "٣", err: "not a number"}, // Arabic-Indic digit: not ASCII
		{in: strings.Repeat("1,", 1000) + "1", err: "more than 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseHistorySelector(tt.in)
			if tt.err != "" {
				var se *SelectorError
				if !errors.As(err, &se) {
					t.Fatalf("ParseHistorySelector(%q) = %+v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				if !strings.Contains(se.Reason, tt.err) {
					t.Fatalf("reason %q does not contain %q", se.Reason, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseHistorySelector(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got.Items, tt.want) {
				t.Fatalf("ParseHistorySelector(%q) = %+v, want %+v", tt.in, got.Items, tt.want)
			}
		})
	}
}

func TestSelectorItemStringRoundTrips(t *testing.T) {
	for _, in := range []string{"42", "~1", "10-15", "~1-~3"} {
		sel, err := ParseHistorySelector(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Items[0].String(); got != in {
			t.Errorf("String() = %q, want %q", got, in)
		}
	}
}

// FuzzHistorySelector checks the parser never panics and that whatever it
// accepts is well-formed: positive bounds, From <= To, and a canonical
// String form that parses back to the same item.
func FuzzHistorySelector(f *testing.F) {
	for _, s := range []string{"42", "~1", "10-15", "3,7,9", "~0", "~-1", "1-~2", "9223372036854775808", ",", "~", "-", "1--1", " ~3 - ~1 ", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := ParseHistorySelector(in)
		if err != nil {
			var se *SelectorError
			if !errors.As(err, &se) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(sel.Items) == 0 {
			t.Fatalf("%q parsed to no items", in)
		}
		for _, it := range sel.Items {
			if it.From < 1 || it.To < it.From {
				t.Fatalf("%q parsed to bad item %+v", in, it)
			}
			back, err := ParseHistorySelector(it.String())
			if err != nil || len(back.Items) != 1 || back.Items[0] != it {
				t.Fatalf("%q: item %+v does not round-trip: %+v, %v", in, it, back, err)
			}
		}
	})
}
