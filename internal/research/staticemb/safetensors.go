package staticemb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// tensorInfo is one entry of a safetensors header.
type tensorInfo struct {
	DType   string `json:"dtype"`
	Shape   []int  `json:"shape"`
	Offsets [2]int `json:"data_offsets"`
	data    []byte
}

// readSafetensors splits a safetensors file into its tensors, checking
// every offset against the file size.
func readSafetensors(b []byte) (map[string]tensorInfo, error) {
	if len(b) < 8 {
		return nil, errors.New("truncated: no header")
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) || n > 100<<20 {
		return nil, fmt.Errorf("truncated or corrupt: header of %d bytes in a %d-byte file", n, len(b))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("corrupt header: %v", err)
	}
	data := b[8+n:]
	out := map[string]tensorInfo{}
	for name, r := range raw {
		if name == "__metadata__" {
			continue
		}
		var t tensorInfo
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, fmt.Errorf("corrupt header entry %q: %v", name, err)
		}
		if t.Offsets[0] < 0 || t.Offsets[1] < t.Offsets[0] || t.Offsets[1] > len(data) {
			return nil, fmt.Errorf("truncated: tensor %q needs bytes %d–%d, the file has %d", name, t.Offsets[0], t.Offsets[1], len(data))
		}
		t.data = data[t.Offsets[0]:t.Offsets[1]]
		elems := 1
		for _, d := range t.Shape {
			if d <= 0 || d > 1<<24 {
				return nil, fmt.Errorf("tensor %q has an implausible shape %v", name, t.Shape)
			}
			elems *= d
		}
		if size := dtypeSize(t.DType); size == 0 {
			return nil, fmt.Errorf("tensor %q has unsupported dtype %s (use F32, F16, I16, I8 or U8)", name, t.DType)
		} else if elems*size != len(t.data) {
			return nil, fmt.Errorf("corrupt: tensor %q shape %v is %d bytes, has %d", name, t.Shape, elems*size, len(t.data))
		}
		out[name] = t
	}
	return out, nil
}

func dtypeSize(dt string) int {
	switch dt {
	case "F32":
		return 4
	case "F16":
		return 2
	case "I16":
		return 2
	case "I8", "U8":
		return 1
	}
	return 0
}

// Tensor is one tensor of a safetensors file: its dtype, shape and bytes.
type Tensor = tensorInfo

// Bytes are the tensor's raw little-endian data (aliasing the file's).
func (t tensorInfo) Bytes() []byte { return t.data }

// ReadSafetensors splits a safetensors file into its tensors (F32, F16,
// I16, I8 or U8), checking every offset and size against the file.
func ReadSafetensors(b []byte) (map[string]Tensor, error) { return readSafetensors(b) }

func isFloat(dt string) bool { return dt == "F32" || dt == "F16" }

// floats decodes an F32 or F16 tensor.
func (t tensorInfo) floats() []float32 {
	switch t.DType {
	case "F32":
		out := make([]float32, len(t.data)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[i*4:]))
		}
		return out
	case "F16":
		out := make([]float32, len(t.data)/2)
		for i := range out {
			out[i] = f16(binary.LittleEndian.Uint16(t.data[i*2:]))
		}
		return out
	}
	return nil
}

// f16 converts an IEEE half-precision float.
func f16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return float32(math.Copysign(float64(frac)*math.Pow(2, -24), float64(int32(sign)|1)))
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// parseWeights builds the int8 table from the "embeddings" tensor.
func parseWeights(b []byte) (*Model, error) {
	ts, err := readSafetensors(b)
	if err != nil {
		return nil, err
	}
	emb, ok := ts["embeddings"]
	if !ok {
		names := make([]string, 0, len(ts))
		for n := range ts {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no \"embeddings\" tensor (has %v)", names)
	}
	if len(emb.Shape) != 2 {
		return nil, fmt.Errorf("embeddings shape %v, want [vocab, dim]", emb.Shape)
	}
	n, dim := emb.Shape[0], emb.Shape[1]
	m := &Model{Dim: dim, scale: make([]float32, n)}
	var weights []float32
	if w, ok := ts["weights"]; ok {
		if len(w.Shape) != 1 || w.Shape[0] != n || !isFloat(w.DType) {
			return nil, fmt.Errorf("weights tensor shape %v %s, want [%d] F32/F16", w.Shape, w.DType, n)
		}
		weights = w.floats()
	}
	switch emb.DType {
	case "I8":
		sc, ok := ts["scales"]
		if !ok || len(sc.Shape) != 1 || sc.Shape[0] != n || !isFloat(sc.DType) {
			return nil, errors.New("I8 embeddings need a per-row F32 \"scales\" tensor")
		}
		copy(m.scale, sc.floats())
		m.rows = make([]int8, len(emb.data))
		for i, v := range emb.data {
			m.rows[i] = int8(v)
		}
	case "F32", "F16":
		f := emb.floats()
		m.rows = make([]int8, len(f))
		for i := range n {
			row := f[i*dim : (i+1)*dim]
			var mx float32
			for _, x := range row {
				mx = max(mx, float32(math.Abs(float64(x))))
			}
			if mx == 0 {
				continue
			}
			m.scale[i] = mx / 127
			for j, x := range row {
				m.rows[i*dim+j] = int8(math.Round(float64(x / m.scale[i])))
			}
		}
	default:
		return nil, fmt.Errorf("embeddings dtype %s, want F32, F16 or I8", emb.DType)
	}
	for i, s := range m.scale {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("corrupt: row %d has a non-finite value", i)
		}
		if weights != nil {
			m.scale[i] = s * weights[i]
		}
	}
	return m, nil
}

// parseTokenizer reads the vocabulary of a BERT WordPiece tokenizer.json
// (token id = index of the returned slice).
func parseTokenizer(b []byte) ([]string, error) {
	var tj struct {
		Normalizer *struct {
			Type      string `json:"type"`
			Lowercase bool   `json:"lowercase"`
		} `json:"normalizer"`
		Model struct {
			Type   string          `json:"type"`
			Prefix string          `json:"continuing_subword_prefix"`
			Vocab  json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &tj); err != nil {
		return nil, fmt.Errorf("corrupt JSON: %v", err)
	}
	if tj.Model.Type != "WordPiece" || (tj.Model.Prefix != "" && tj.Model.Prefix != "##") {
		return nil, fmt.Errorf("unsupported tokenizer model %q (only BERT WordPiece)", tj.Model.Type)
	}
	if tj.Normalizer == nil || tj.Normalizer.Type != "BertNormalizer" || !tj.Normalizer.Lowercase {
		return nil, errors.New("unsupported normalizer (only an uncased BertNormalizer)")
	}
	vocab, err := decodeVocab(tj.Model.Vocab)
	if err != nil {
		return nil, fmt.Errorf("corrupt vocabulary: %v", err)
	}
	n := len(vocab)
	if n == 0 {
		return nil, errors.New("empty vocabulary")
	}
	tokens := make([]string, n)
	for t, id := range vocab {
		if id < 0 || int(id) >= n || tokens[id] != "" {
			return nil, fmt.Errorf("vocabulary ids are not 0..%d", n-1)
		}
		tokens[id] = t
	}
	return tokens, nil
}

// decodeVocab reads the {"token": id, …} object. It scans the bytes itself:
// encoding/json's reflection takes ~30 ms for 30k entries, which every cold
// process that embeds would pay; only escaped keys go through it.
func decodeVocab(raw []byte) (map[string]int32, error) {
	i := 0
	ws := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
			i++
		}
	}
	bad := func(what string) error { return fmt.Errorf("expected %s at byte %d", what, i) }
	ws()
	if i >= len(raw) || raw[i] != '{' {
		return nil, bad("{")
	}
	i++
	m := make(map[string]int32, bytes.Count(raw, []byte(`":`)))
	for {
		ws()
		if i < len(raw) && raw[i] == '}' && len(m) == 0 {
			return m, nil
		}
		if i >= len(raw) || raw[i] != '"' {
			return nil, bad("a token")
		}
		j, escaped := i+1, false
		for ; j < len(raw) && raw[j] != '"'; j++ {
			if raw[j] == '\\' {
				escaped = true
				j++
			}
		}
		if j >= len(raw) {
			return nil, bad("the end of a token")
		}
		var key string
		if escaped {
			if err := json.Unmarshal(raw[i:j+1], &key); err != nil {
				return nil, err
			}
		} else {
			key = string(raw[i+1 : j])
		}
		i = j + 1
		ws()
		if i >= len(raw) || raw[i] != ':' {
			return nil, bad(":")
		}
		i++
		ws()
		start := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		id, err := strconv.ParseInt(string(raw[start:i]), 10, 32)
		if err != nil {
			return nil, bad("a token id")
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("token %q listed twice", key)
		}
		m[key] = int32(id)
		ws()
		if i < len(raw) && raw[i] == ',' {
			i++
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return m, nil
		}
		return nil, bad(", or }")
	}
}
