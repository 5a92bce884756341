package store

import (
	"context"
	"testing"
)

// A removed job's session keeps its answers; a new job must not get its
// id and so inherit that session's turns as context.
func TestCreateJobSkipsIDsOfRemovedJobSessions(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	a := &Job{Question: "first", ScheduleKind: "manual"}
	if err := st.CreateJob(ctx, a); err != nil || a.ID != 1 {
		t.Fatalf("id %d, err %v", a.ID, err)
	}
	if err := st.CreateSession(ctx, &Session{Name: "job-1"}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteJob(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	b := &Job{Question: "second", ScheduleKind: "manual"}
	if err := st.CreateJob(ctx, b); err != nil {
		t.Fatal(err)
	}
	if b.ID != 2 {
		t.Errorf("new job got id %d, the removed job's (session job-1 has its answers)", b.ID)
	}
}
