package telegram

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A job's answer goes to an allowed chat (or an allowed user's private
// chat) as HTML split at 4096; other chats are refused without a call,
// and a failed send is returned, not dropped.
func TestDeliver(t *testing.T) {
	api := newFake(t)
	tr, err := New(Options{Token: "123:abc", APIURL: api.srv.URL, AllowedUsers: []int64{42}, AllowedChats: []int64{-500}, PollTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	long := "**Job 1:** q\n\n" + strings.TrimSpace(strings.Repeat(strings.Repeat("word ", 150)+"\n", 8))
	if err := tr.Deliver(ctx, "-500", long); err != nil {
		t.Fatal(err)
	}
	got := api.sent(-500)
	if len(got) != 2 || got[0].Params["parse_mode"] != "HTML" || !strings.HasPrefix(got[0].Params["text"], "<b>Job 1:</b> q") {
		t.Fatalf("%d messages: %+v", len(got), got)
	}
	if err := tr.Deliver(ctx, "42", "a < b"); err != nil || api.sent(42)[0].Params["text"] != "a &lt; b" {
		t.Fatalf("%v %+v", err, api.sent(42))
	}
	// A forum topic of an allowed chat, named as its conversation is.
	if err := tr.Deliver(ctx, "-500:77", "in the topic"); err != nil {
		t.Fatal(err)
	}
	if got := api.sent(-500); len(got) != 3 || got[2].Params["message_thread_id"] != "77" || got[2].Params["text"] != "in the topic" {
		t.Fatalf("%+v", got)
	}
	for _, to := range []string{"7", "@somechannel", "7:77", "-500:0", "-500:x"} {
		if err := tr.Deliver(ctx, to, "secret"); err == nil || !strings.Contains(err.Error(), "refused to deliver to telegram:"+to) {
			t.Fatalf("deliver to %s: %v", to, err)
		}
	}
	if n := api.count("sendMessage"); n != 4 {
		t.Fatalf("%d sendMessage calls", n)
	}
	api.failNext("sendMessage", apiError{Code: 0})
	if err := tr.Deliver(ctx, "42", "lost?"); err == nil || !strings.Contains(err.Error(), "telegram:42 (part 1 of 1) not delivered") {
		t.Fatalf("network failure: %v", err)
	}
}
