package research

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decodeText turns a text file's bytes into UTF-8. Windows tools write
// UTF-16 with a byte-order mark (PowerShell's `>`, Notepad's "Unicode")
// and older files are Latin-1: both are ordinary text and are decoded
// rather than refused ("NUL bytes", "not UTF-8"). Bytes that are neither,
// or that decode to control characters, are still refused as binary.
func decodeText(data []byte) (string, error) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	}
	if enc != nil {
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil || !mostlyText(out) {
			return "", skipf("not valid UTF-16 text")
		}
		return string(out), nil
	}
	if err := checkText(data); err != nil {
		return "", err
	}
	if utf8.Valid(data) {
		return string(data), nil
	}
	// Not UTF-8: Latin-1, read as Windows-1252 (its superset for the
	// printable range, as browsers do), unless it looks like binary.
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil || !mostlyText(out) {
		return "", skipf("not valid UTF-8 or Latin-1 text (convert it first, e.g. iconv -f CP1251 -t UTF-8)")
	}
	return string(out), nil
}

// mostlyText reports whether decoded UTF-8 has almost no control
// characters besides tab, newline, carriage return and form feed.
func mostlyText(b []byte) bool {
	bad, n := 0, 0
	for _, r := range string(b) {
		n++
		if r == utf8.RuneError || (r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f') || (r >= 0x7f && r < 0xa0) {
			bad++
		}
	}
	return bad*100 <= n // at most 1%
}
