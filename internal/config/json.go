package config

import (
	"encoding/json"
	"io"
	"net/http"
)

func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(v)
}
