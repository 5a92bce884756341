// Package wire holds what the OpenAI and Anthropic clients share: a
// hand-written Server-Sent Events parser, the HTTP call with its timeouts,
// error classification into llm.Error, and the redacting -vv trace.
package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched SSE event. Name is the `event:` field ("" when
// absent); Data joins multiple `data:` lines with "\n".
type Event struct {
	Name string
	Data string
}

// maxLine bounds a single SSE line so a hostile or broken server cannot make
// the client buffer without limit.
const maxLine = 8 << 20

// ErrFrameTooLarge is returned for a line longer than maxLine.
var ErrFrameTooLarge = errors.New("stream frame larger than 8 MiB")

// SSEReader parses an event stream incrementally. The result does not depend
// on how the bytes are chunked by the network: lines are assembled before
// they are interpreted.
type SSEReader struct {
	br      *bufio.Reader
	pending []string // lines split on lone CRs, not yet interpreted
	name    string
	data    bytes.Buffer
	hasData bool
}

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{br: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event whose final blank line is missing is still dispatched when its
// last line was complete, because several servers end with "data: [DONE]\n".
// A line cut off mid-way is dropped, so a truncated stream never yields a
// half frame. Read errors are returned as they are.
func (s *SSEReader) Next() (Event, error) {
	for {
		line, complete, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if complete && s.hasData {
					return s.dispatch(), nil
				}
				s.reset()
			}
			return Event{}, err
		}
		if line == "" {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.reset()
			continue
		}
		s.field(line)
	}
}

func (s *SSEReader) field(line string) {
	if line[0] == ':' {
		return // comment, e.g. ": OPENROUTER PROCESSING"
	}
	name, value := line, ""
	for i := 0; i < len(line); i++ {
		if line[i] == ':' {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
			break
		}
	}
	switch name {
	case "event":
		s.name = value
	case "data":
		if s.hasData {
			s.data.WriteByte('\n')
		}
		s.data.WriteString(value)
		s.hasData = true
	}
	// id and retry are meaningless for a single request; unknown fields are
	// ignored as the spec requires.
}

func (s *SSEReader) dispatch() Event {
	ev := Event{Name: s.name, Data: s.data.String()}
	s.reset()
	return ev
}

func (s *SSEReader) reset() {
	s.name = ""
	s.data.Reset()
	s.hasData = false
}

// line returns the next logical line without its terminator. complete
// reports whether a terminator was seen; at EOF err is io.EOF and complete
// says whether the stream ended right after a terminator. Lines end with
// LF, CRLF or a lone CR.
func (s *SSEReader) line() (string, bool, error) {
	if len(s.pending) > 0 {
		l := s.pending[0]
		s.pending = s.pending[1:]
		return l, true, nil
	}
	var buf []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			return "", false, ErrFrameTooLarge
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case err == nil:
			buf = bytes.TrimSuffix(buf[:len(buf)-1], []byte("\r"))
		case len(buf) > 0 && buf[len(buf)-1] == '\r':
			// The stream ended right after a lone CR: a complete line. The
			// next call sees the error again with nothing buffered.
			buf = buf[:len(buf)-1]
		default:
			// Clean end, or a final line cut off before its terminator.
			return "", len(buf) == 0, err
		}
		s.splitCR(buf)
		l := s.pending[0]
		s.pending = s.pending[1:]
		return l, true, nil
	}
}

// splitCR queues the CR-separated parts of one LF-terminated line.
func (s *SSEReader) splitCR(b []byte) {
	for _, p := range bytes.Split(b, []byte("\r")) {
		s.pending = append(s.pending, string(p))
	}
}
