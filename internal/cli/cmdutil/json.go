package cmdutil

import (
	"encoding/json"
	"io"
)

// WriteJSON prints v as indented JSON, the format of every --json output.
// HTML characters are not escaped: the output is for terminals and jq.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
