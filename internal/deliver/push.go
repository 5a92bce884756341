package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/askygo/asky/internal/config"
)

// Answer is what --push-data sends about one turn.
type Answer struct {
	Query     string
	Answer    string
	Model     string
	Timestamp time.Time
	HistoryID int64
	SessionID int64
	Sources   []string
}

// PushSpec is --push-data's value: ENDPOINT or ENDPOINT?k=v&k2=v2.
type PushSpec struct {
	Endpoint string
	Params   map[string]string
}

// ParsePushSpec parses ENDPOINT[?k=v&…].
func ParsePushSpec(s string) (PushSpec, error) {
	name, query, _ := strings.Cut(strings.TrimSpace(s), "?")
	if name == "" {
		return PushSpec{}, fmt.Errorf("--push-data needs an endpoint name from [push_data.NAME], got %q", s)
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return PushSpec{}, fmt.Errorf("--push-data %s: bad parameters: %v", name, err)
	}
	p := PushSpec{Endpoint: name, Params: map[string]string{}}
	for k, v := range vals {
		p.Params[k] = v[len(v)-1]
	}
	return p, nil
}

// Endpoint returns the named, enabled endpoint.
func Endpoint(endpoints map[string]config.PushEndpoint, name string) (config.PushEndpoint, error) {
	ep, ok := endpoints[name]
	if !ok {
		names := make([]string, 0, len(endpoints))
		for n := range endpoints {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return ep, fmt.Errorf("no push endpoints configured: add [push_data.%s] with url = … to config.toml", name)
		}
		return ep, fmt.Errorf("unknown push endpoint %q; configured: %s", name, strings.Join(names, ", "))
	}
	if ep.Enabled != nil && !*ep.Enabled {
		return ep, fmt.Errorf("push endpoint %q is disabled (enabled = false)", name)
	}
	return ep, nil
}

// Push sends a to the configured endpoint of spec with client (the plain
// client: endpoints are the user's own configuration), as userAgent
// unless the endpoint sets its own User-Agent header. It returns the
// response status line.
func Push(ctx context.Context, client *http.Client, userAgent string, endpoints map[string]config.PushEndpoint, spec PushSpec, a Answer, getenv func(string) string) (string, error) {
	ep, u, err := checkEndpoint(endpoints, spec, getenv)
	if err != nil {
		return "", err
	}
	payload, err := buildPayload(ep.Fields, spec.Params, a, getenv)
	if err != nil {
		return "", fmt.Errorf("push_data.%s: %w", spec.Endpoint, err)
	}
	method := strings.ToUpper(ep.Method)
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if method == http.MethodGet {
		q := u.Query()
		for k, v := range payload {
			q.Set(k, fmt.Sprint(v))
		}
		u.RawQuery = q.Encode()
	} else {
		b, err := json.Marshal(payload)
		if err != nil {
			return "", err
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	for k, v := range ep.Headers {
		if name, ok := strings.CutSuffix(k, "_env"); ok {
			req.Header.Set(name, getenv(v))
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("push to %s: %w", spec.Endpoint, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("push to %s: %s answered %s", spec.Endpoint, u.Host, resp.Status)
	}
	return resp.Status, nil
}

// CheckPush reports what would make Push fail before anything is sent:
// an unknown or disabled endpoint, a bad URL, a header variable that is
// not set, or a ${param} field the spec does not give. The CLI calls it
// before asking, so a missing ?param costs no tokens.
func CheckPush(endpoints map[string]config.PushEndpoint, spec PushSpec, getenv func(string) string) error {
	ep, _, err := checkEndpoint(endpoints, spec, getenv)
	if err != nil {
		return err
	}
	if _, err := buildPayload(ep.Fields, spec.Params, Answer{}, getenv); err != nil {
		return fmt.Errorf("push_data.%s: %w", spec.Endpoint, err)
	}
	return nil
}

// checkEndpoint returns the endpoint of spec and its URL, with every
// header variable set.
func checkEndpoint(endpoints map[string]config.PushEndpoint, spec PushSpec, getenv func(string) string) (config.PushEndpoint, *url.URL, error) {
	ep, err := Endpoint(endpoints, spec.Endpoint)
	if err != nil {
		return ep, nil, err
	}
	u, err := url.Parse(ep.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ep, nil, fmt.Errorf("push_data.%s.url must be an http(s) URL, got %q", spec.Endpoint, ep.URL)
	}
	for k, v := range ep.Headers {
		if _, ok := strings.CutSuffix(k, "_env"); ok && getenv(v) == "" {
			return ep, nil, fmt.Errorf("push_data.%s.headers.%s: environment variable %s is not set", spec.Endpoint, k, v)
		}
	}
	return ep, u, nil
}

// buildPayload resolves the endpoint's fields as the original: static
// values, NAME_env (value from the environment), ${query} ${answer}
// ${timestamp} ${model}, and ${param} from ENDPOINT?param=value. Without
// fields the payload is the answer and its metadata plus the parameters.
func buildPayload(fields map[string]any, params map[string]string, a Answer, getenv func(string) string) (map[string]any, error) {
	special := map[string]string{"query": a.Query, "answer": a.Answer, "model": a.Model, "timestamp": a.Timestamp.UTC().Format(time.RFC3339)}
	if len(fields) == 0 {
		out := map[string]any{"query": a.Query, "answer": a.Answer, "model": a.Model, "timestamp": special["timestamp"],
			"history_id": a.HistoryID, "sources": nonNilStrings(a.Sources)}
		if a.SessionID != 0 {
			out["session_id"] = a.SessionID
		}
		for k, v := range params {
			if _, taken := out[k]; !taken {
				out[k] = v
			}
		}
		return out, nil
	}
	out := map[string]any{}
	for k, v := range fields {
		if name, ok := strings.CutSuffix(k, "_env"); ok {
			env, _ := v.(string)
			out[name] = getenv(env)
			continue
		}
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
			out[k] = v
			continue
		}
		name := s[2 : len(s)-1]
		if val, ok := special[name]; ok {
			out[k] = val
			continue
		}
		val, ok := params[name]
		if !ok {
			return nil, fmt.Errorf("field %s needs %s: add ?%s=… to the endpoint", k, s, name)
		}
		out[k] = val
	}
	return out, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
