package jobs

import (
	"testing"
	"time"
)

func TestCronNext(t *testing.T) {
	from := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC) // a Tuesday
	for _, tc := range []struct{ expr, want string }{
		{"* * * * *", "2026-11-24 09:31"},
		{"0 7 * * 1-5", "2026-11-25 07:00"},
		{"*/15 * * * *", "2026-11-24 09:45"},
		{"0 0 1 * *", "2026-12-01 00:00"},
		{"30 9 * * 0", "2026-11-29 09:30"},
		{"30 9 * * 7", "2026-11-29 09:30"},
		{"0 12 29 2 *", "2028-02-29 12:00"},
		{"0 9 1 * 1", "2026-11-30 09:00"}, // either day field matches
	} {
		c, err := ParseCron(tc.expr)
		if err != nil {
			t.Fatalf("%q: %v", tc.expr, err)
		}
		if got := c.Next(from).Format("2006-01-02 15:04"); got != tc.want {
			t.Errorf("%q: next %s, want %s", tc.expr, got, tc.want)
		}
	}
	for _, bad := range []string{"", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "*/0 * * * *", "a * * * *", "5-1 * * * *"} {
		if _, err := ParseCron(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEveryAtAndFollowing(t *testing.T) {
	if d, err := ParseEvery("1d"); err != nil || d != 24*time.Hour {
		t.Fatal(d, err)
	}
	for _, bad := range []string{"0d", "1", "1y", "-1h", "1.5h"} {
		if _, err := ParseEvery(bad); err == nil {
			t.Errorf("--every %q accepted", bad)
		}
	}
	now := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	if at, _ := ParseAt("09:00", now); at.Format(time.DateTime) != "2026-11-25 09:00:00" {
		t.Errorf("09:00 after 09:30 is tomorrow: %v", at)
	}
	if at, _ := ParseAt("2026-12-01 08:15", now); at.Format(time.DateTime) != "2026-12-01 08:15:00" {
		t.Errorf("at %v", at)
	}
	if _, err := ParseAt("soon", now); err == nil {
		t.Error("--at soon accepted")
	}
	due := now.Add(-50 * time.Hour)
	if next, _ := Following(Every, "1d", due, now); !next.Equal(due.Add(72 * time.Hour)) {
		t.Errorf("following %v", next)
	}
}

func TestParseTarget(t *testing.T) {
	dir := t.TempDir()
	if tg, err := ParseTarget("file:out.md", dir); err != nil || tg.Addr != dir+"/out.md" {
		t.Fatal(tg, err)
	}
	for _, ok := range []string{"xmpp:me@example.org", "telegram:123456", "telegram:-100123", "telegram:-100123:77"} {
		if _, err := ParseTarget(ok, dir); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"file:", "file:/no/such/dir/x.md", "xmpp:me", "telegram:bob", "telegram:@my_channel", "telegram:-100123:", "telegram:-100123:0", "telegram:-100123:x", "mail:me@example.org", "me@example.org"} {
		if _, err := ParseTarget(bad, dir); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
