package wire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// parseAll reads every event; the error is the one that ended the stream.
func parseAll(r io.Reader) ([]Event, error) {
	s := NewSSEReader(r)
	var out []Event
	for {
		ev, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

// splitReader returns the input in pieces cut at the given offsets.
type splitReader struct {
	data []byte
	cuts []int
	pos  int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if r.pos >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	for len(r.cuts) > 0 {
		c := r.cuts[0]
		if c <= r.pos {
			r.cuts = r.cuts[1:]
			continue
		}
		end = min(end, c)
		break
	}
	end = min(end, r.pos+len(p))
	n := copy(p, r.data[r.pos:end])
	r.pos += n
	return n, nil
}

func TestSSEParser(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Event
	}{
		{"basic", "data: a\n\ndata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}},
		{"crlf", "data: a\r\n\r\nevent: x\r\ndata: b\r\n\r\n", []Event{{Data: "a"}, {Name: "x", Data: "b"}}},
		{"lone cr", "data: a\r\rdata: b\r\r", []Event{{Data: "a"}, {Data: "b"}}},
		{"comments and ping", ": OPENROUTER PROCESSING\n\nevent: ping\ndata: {}\n\n: keep-alive\n\n", []Event{{Name: "ping", Data: "{}"}}},
		{"multi-line data", "data: line1\ndata: line2\ndata:\n\n", []Event{{Data: "line1\nline2\n"}}},
		{"no space after colon", "data:x\nevent:y\n\n", []Event{{Name: "y", Data: "x"}}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: z\n\n", []Event{{Data: "z"}}},
		{"event without data is not dispatched", "event: lonely\n\ndata: q\n\n", []Event{{Data: "q"}}},
		{"final event without blank line", "data: a\n\ndata: [DONE]\n", []Event{{Data: "a"}, {Data: "[DONE]"}}},
		{"final line cut mid-way is dropped", "data: a\n\ndata: {\"choi", []Event{{Data: "a"}}},
		{"field without colon", "data\n\n", []Event{{Data: ""}}},
		{"empty", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAll(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			// Byte by byte gives the same events.
			got1, _ := parseAll(&splitReader{data: []byte(tc.in), cuts: seq(len(tc.in))})
			if !reflect.DeepEqual(got1, tc.want) {
				t.Errorf("byte-wise: got %q", got1)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestSSEFrameTooLarge(t *testing.T) {
	in := "data: " + strings.Repeat("x", maxLine+10) + "\n\n"
	_, err := parseAll(strings.NewReader(in))
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("err = %v", err)
	}
}

// FuzzSSEParser checks that chunking never changes the events and that no
// input panics. Seeds in testdata/fuzz/FuzzSSEParser are captured frames.
func FuzzSSEParser(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hé\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n"), uint64(7))
	f.Add([]byte(": OPENROUTER PROCESSING\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		whole, werr := parseAll(bytes.NewReader(data))
		var cuts []int
		x := seed | 1
		for pos := 0; pos < len(data); {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			pos += int(x%17) + 1
			cuts = append(cuts, pos)
		}
		split, serr := parseAll(&splitReader{data: data, cuts: cuts})
		if !reflect.DeepEqual(whole, split) || (werr == nil) != (serr == nil) {
			t.Fatalf("chunking changed the result:\nwhole %q %v\nsplit %q %v", whole, werr, split, serr)
		}
		for _, ev := range whole {
			if strings.ContainsAny(ev.Name, "\r\n") {
				t.Fatalf("event name %q contains a line break", ev.Name)
			}
		}
	})
}

// BenchmarkSSEParser measures parsing throughput on typical OpenAI frames.
func BenchmarkSSEParser(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 1000; i++ {
		buf.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]}` + "\n\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		s := NewSSEReader(bytes.NewReader(data))
		n := 0
		for {
			if _, err := s.Next(); err != nil {
				break
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("%d events", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/frame")
}
