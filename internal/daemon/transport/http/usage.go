package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/askygo/asky/internal/store"
	ledger "github.com/askygo/asky/internal/usage"
)

// UsageLedger reads the usage ledger (the store, opened lazily).
type UsageLedger interface {
	UsageSince(ctx context.Context, since time.Time) ([]store.UsageEvent, error)
}

// usageReport is GET /v1/usage?period=today|week|all: the tokens and cost
// of every model call in the period (CLI and daemon alike), in total and
// by model and purpose — `asky usage` for a dashboard or a chat bot.
func (s *Server) usageReport(w http.ResponseWriter, r *http.Request) {
	if s.o.Usage == nil {
		writeError(w, http.StatusNotFound, "not_found", "usage is not available on this server")
		return
	}
	period := r.URL.Query().Get("period")
	if period == "" {
		period = "today"
	}
	since, err := ledger.Period(period, s.o.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	events, err := s.o.Usage.UsageSince(r.Context(), since)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "asky_error", err.Error())
		return
	}
	byModel := ledger.Summarize(events, "model", since)
	byPurpose := ledger.Summarize(events, "purpose", since)
	writeJSON(w, http.StatusOK, map[string]any{"period": period, "since": byModel.Since, "total": byModel.Total,
		"by_model": byModel.Rows, "by_purpose": byPurpose.Rows})
}
