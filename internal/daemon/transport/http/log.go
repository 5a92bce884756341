package httpapi

import (
	"fmt"
	"net/http"
	"time"
)

// logged writes one line per request: time, client, method, path, status,
// duration, the request id (also sent as X-Request-Id, so a client's
// report can be found here) and the conversation when named. Bodies and
// tokens are never logged.
func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.o.Now()
		id := "req_" + randomID()
		w.Header().Set(RequestIDHeader, id)
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		conv := r.Header.Get(ConversationHeader)
		if conv != "" {
			conv = fmt.Sprintf(" conversation=%q", conv)
		}
		fmt.Fprintf(s.o.Log, "%s %s %s %s %d %s %s%s\n", start.UTC().Format(time.RFC3339), clientIP(r), r.Method, r.URL.EscapedPath(),
			rec.status, s.o.Now().Sub(start).Round(time.Millisecond), id, conv)
	})
}

// recorder remembers the status code; Unwrap keeps Flush and write
// deadlines reachable through http.ResponseController.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
