package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/askygo/asky/internal/llm"
)

// samplingFields are the OpenAI request fields asky applies to the calls
// that produce the answer (llm.Sampling says which calls and why not the
// helper ones). Null is the same as absent.
type samplingFields struct {
	Temperature         *float64           `json:"temperature"`
	TopP                *float64           `json:"top_p"`
	MaxTokens           *int               `json:"max_tokens"`
	MaxCompletionTokens *int               `json:"max_completion_tokens"`
	Seed                *int64             `json:"seed"`
	Stop                stopList           `json:"stop"`
	PresencePenalty     *float64           `json:"presence_penalty"`
	FrequencyPenalty    *float64           `json:"frequency_penalty"`
	LogitBias           map[string]float64 `json:"logit_bias"`
	ReasoningEffort     *string            `json:"reasoning_effort"`
}

// stopList is OpenAI's stop: one string or a list of strings.
type stopList []string

func (l *stopList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = stopList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return &llm.ParamError{Param: "stop", Code: "invalid_type", Message: "invalid stop: it must be a string or a list of strings"}
	}
	*l = many
	return nil
}

// sampling translates the fields into an llm.Sampling and checks OpenAI's
// ranges. max_completion_tokens is OpenAI's newer name of max_tokens:
// both become one limit (the provider packages choose the wire name).
func (f samplingFields) sampling() (llm.Sampling, *apiError) {
	s := llm.Sampling{Temperature: f.Temperature, TopP: f.TopP, MaxTokens: f.MaxTokens, Seed: f.Seed, Stop: f.Stop,
		PresencePenalty: f.PresencePenalty, FrequencyPenalty: f.FrequencyPenalty, LogitBias: f.LogitBias}
	if f.ReasoningEffort != nil {
		s.ReasoningEffort = *f.ReasoningEffort
	}
	limit := "max_tokens"
	if f.MaxCompletionTokens != nil {
		if f.MaxTokens != nil && *f.MaxTokens != *f.MaxCompletionTokens {
			e := paramError(&llm.ParamError{Param: "max_tokens", Code: "invalid_value",
				Message: fmt.Sprintf("max_tokens (%d) and max_completion_tokens (%d) differ: they are one limit, set one of them", *f.MaxTokens, *f.MaxCompletionTokens)})
			return s, &e
		}
		s.MaxTokens, limit = f.MaxCompletionTokens, "max_completion_tokens"
	}
	var pe *llm.ParamError
	if err := s.Validate(); errors.As(err, &pe) {
		if pe.Param == "max_tokens" && limit != pe.Param {
			pe.Param, pe.Message = limit, fmt.Sprintf("invalid %s %d: it must be at least 1", limit, *s.MaxTokens)
		}
		e := paramError(pe)
		return s, &e
	}
	return s, nil
}

// paramError is OpenAI's answer to a parameter out of range: 400
// invalid_request_error naming the parameter.
func paramError(pe *llm.ParamError) apiError {
	return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: pe.Code, Param: pe.Param, Message: pe.Message}
}

// bodyError answers a body that does not decode: 400, naming the field
// when one has the wrong type ("temperature": "hot").
func bodyError(err error) apiError {
	var (
		pe *llm.ParamError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &pe):
		return paramError(pe)
	case errors.As(err, &te) && te.Field != "":
		// The path names the Go struct of an embedded field; the client
		// knows only the JSON name.
		field := strings.TrimPrefix(strings.TrimPrefix(te.Field, "samplingFields."), "chatOptions.")
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_type", Param: field,
			Message: fmt.Sprintf("invalid %s: expected %s, got a JSON %s", field, jsonKind(te.Type), te.Value)}
	}
	return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "invalid JSON body: " + err.Error()}
}

// unknownAskField answers a /v1/ask body with a field the endpoint does
// not take, naming it and what the endpoint does take: a typo such as
// max_token would otherwise read as a JSON syntax problem, and a chat
// field (stream, messages) says where it belongs. ok is false when err is
// not an unknown field.
func unknownAskField(err error) (apiError, bool) {
	const prefix = `json: unknown field "`
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return apiError{}, false
	}
	field := strings.TrimSuffix(strings.TrimPrefix(msg, prefix), `"`)
	var why string
	switch field {
	case "stream", "stream_options":
		why = "/v1/ask answers in one JSON object; to stream, use POST /v1/chat/completions with \"stream\": true"
	case "user":
		why = "/v1/ask names the conversation (session http:NAME) with \"conversation\""
	case "messages", "prompt":
		why = "/v1/ask takes the question as \"question\" (a string); for a message list use POST /v1/chat/completions"
	default:
		why = "/v1/ask takes " + strings.Join(jsonFields(reflect.TypeFor[askRequest]()), ", ")
	}
	return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "unknown_parameter", Param: field,
		Message: fmt.Sprintf("unknown parameter %q: %s", field, why)}, true
}

// jsonFields lists the JSON names of a struct's fields, embedded structs'
// fields in place.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		if f.Anonymous {
			names = append(names, jsonFields(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// jsonKind names a Go type as a JSON client knows it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
