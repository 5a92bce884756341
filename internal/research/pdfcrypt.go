package research

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
)

// AES-256 encryption (standard security handler V5, revisions 5 and 6,
// crypt filter /AESV3; PDF 32000-2 §7.6.4.3.3-4) is what current tools
// write, and the PDF library stops at it. A file whose user password is
// empty (only the owner's permissions are locked) opens in any viewer
// without asking, so it is read here: the file key comes from /U and /UE,
// and every string and stream is decrypted in place in a copy of the file,
// same offsets, so the library then reads it as an unencrypted PDF.

// errNotAESV3 means the file is not AES-256 encrypted: the library's own
// error stands.
var errNotAESV3 = errors.New("not AES-256 encrypted")

// errNeedsPassword means the empty user password does not open the file.
var errNeedsPassword = errors.New("needs a password")

// decryptAESV3 returns a decrypted copy of an AES-256 encrypted PDF whose
// user password is empty, with the trailer's /Encrypt entries renamed so
// the copy reads as unencrypted.
func decryptAESV3(data []byte) ([]byte, error) {
	scan := scanPDF(data)
	var encRef *pdfObj
	var enc *pdfObj
	var renames []int
	for _, t := range scan.trailers {
		e := t.key("Encrypt")
		if e == nil {
			continue
		}
		renames = append(renames, t.encryptAt)
		if enc == nil && encRef == nil {
			if e.kind == pdfRef {
				encRef = e
			} else {
				enc = e
			}
		}
	}
	if encRef != nil {
		for i := len(scan.objs) - 1; i >= 0; i-- { // the last definition wins
			if o := scan.objs[i]; o.num == encRef.ref[0] && o.gen == encRef.ref[1] {
				enc = o.val
				break
			}
		}
	}
	if enc == nil || enc.kind != pdfDict {
		return nil, errNotAESV3
	}
	if v, _ := enc.key("V").int(); v != 5 {
		return nil, errNotAESV3
	}
	h, err := newAESV3Handler(enc)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(data)
	for _, at := range renames {
		if at >= 0 && at+len("/Encrypt") <= len(out) {
			copy(out[at:], "/Xncrypt") // a key nothing reads
		}
	}
	for _, o := range scan.objs {
		if encRef != nil && o.num == encRef.ref[0] && o.gen == encRef.ref[1] || o.val != nil && o.val == enc {
			continue // the encryption dictionary is not encrypted
		}
		if o.typ == "XRef" {
			continue // nor is a cross-reference stream, strings included
		}
		if h.strings {
			for _, s := range o.strs {
				h.putString(out, s)
			}
		}
		if o.stream && h.streams && !(o.typ == "Metadata" && !h.metadata) && !o.crypt {
			h.putStream(out, o.dataStart, o.dataEnd)
		}
	}
	return out, nil
}

// aesV3Handler holds the file key and what it applies to.
type aesV3Handler struct {
	block            cipher.Block
	strings, streams bool // /StrF, /StmF name the AESV3 filter (not /Identity)
	metadata         bool // /EncryptMetadata
}

func newAESV3Handler(enc *pdfObj) (*aesV3Handler, error) {
	if f := enc.key("Filter").name(); f != "Standard" {
		return nil, fmt.Errorf("encryption filter /%s", f)
	}
	r, _ := enc.key("R").int()
	if r != 5 && r != 6 {
		return nil, fmt.Errorf("AES-256 encryption with revision R=%d", r)
	}
	h := &aesV3Handler{metadata: true}
	if m := enc.key("EncryptMetadata"); m != nil && m.kind == pdfKeyword && m.s == "false" {
		h.metadata = false
	}
	// /StmF and /StrF name a crypt filter in /CF; absent, they are
	// /Identity (no encryption).
	filter := func(key string) (bool, error) {
		name := enc.key(key).name()
		if name == "" || name == "Identity" {
			return false, nil
		}
		if cfm := enc.key("CF").key(name).key("CFM").name(); cfm != "AESV3" {
			return false, fmt.Errorf("AES-256 encryption with crypt filter method /%s", cfm)
		}
		return true, nil
	}
	var err error
	if h.streams, err = filter("StmF"); err != nil {
		return nil, err
	}
	if h.strings, err = filter("StrF"); err != nil {
		return nil, err
	}
	u, ue := encString(enc, "U"), encString(enc, "UE")
	if len(u) < 48 || len(ue) < 32 {
		return nil, errors.New("malformed AES-256 encryption dictionary (/U or /UE too short)")
	}
	// The user password is empty: /U's first 32 bytes are its hash with
	// the validation salt; the hash with the key salt unwraps /UE.
	if subtle.ConstantTimeCompare(hashV5(nil, u[32:40], nil, r), u[:32]) != 1 {
		return nil, errNeedsPassword
	}
	kek, _ := aes.NewCipher(hashV5(nil, u[40:48], nil, r))
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(kek, make([]byte, 16)).CryptBlocks(key, ue[:32])
	h.block, _ = aes.NewCipher(key)
	return h, nil
}

func encString(enc *pdfObj, key string) []byte {
	if s := enc.key(key); s != nil && s.kind == pdfStr {
		return []byte(s.s)
	}
	return nil
}

// hashV5 is the password hash of PDF 32000-2 algorithm 2.B (R6): SHA-256,
// then rounds of AES-128 over 64 copies of password, hash and udata, each
// rehashed with SHA-256, -384 or -512 as the round's output says, at
// least 64 rounds, until the last byte of the output allows it to stop.
// R5 (an Adobe extension level 3 revision, deprecated) stops after the
// first SHA-256. udata is /U for an owner password, nil for the user's.
func hashV5(pw, salt, udata []byte, r int) []byte {
	h := sha256.New()
	h.Write(pw)
	h.Write(salt)
	h.Write(udata)
	k := h.Sum(nil)
	if r != 6 {
		return k
	}
	for i := 0; ; i++ {
		k1 := bytes.Repeat(append(append(append([]byte{}, pw...), k...), udata...), 64)
		blk, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(blk, k[16:32]).CryptBlocks(e, k1)
		// The first 16 bytes as a number mod 3: 256 ≡ 1 (mod 3), so the
		// sum of the bytes mod 3.
		sum := 0
		for _, c := range e[:16] {
			sum += int(c)
		}
		switch sum % 3 {
		case 0:
			s := sha256.Sum256(e)
			k = s[:]
		case 1:
			s := sha512.Sum384(e)
			k = s[:]
		default:
			s := sha512.Sum512(e)
			k = s[:]
		}
		if i >= 63 && int(e[len(e)-1]) <= i-31 {
			return k[:32]
		}
	}
}

// decrypt undoes AES-256-CBC with the IV in the first 16 bytes and
// PKCS#7 padding. ok is false when data is not a whole number of blocks;
// bad padding is left on (the data then shows as is).
func (h *aesV3Handler) decrypt(data []byte) (plain []byte, ok bool) {
	if len(data) < aes.BlockSize || len(data)%aes.BlockSize != 0 {
		return nil, false
	}
	plain = make([]byte, len(data)-aes.BlockSize)
	cipher.NewCBCDecrypter(h.block, data[:aes.BlockSize]).CryptBlocks(plain, data[aes.BlockSize:])
	if n := len(plain); n > 0 {
		if p := int(plain[n-1]); p >= 1 && p <= aes.BlockSize && p <= n && bytes.Equal(plain[n-p:], bytes.Repeat([]byte{byte(p)}, p)) {
			plain = plain[:n-p]
		}
	}
	return plain, true
}

// putStream decrypts a stream's data in place, padding with spaces to the
// old length: the decoders stop at their own end, and a space is nothing
// in a content stream, a CMap or an object stream.
func (h *aesV3Handler) putStream(out []byte, start, end int) {
	if start < 0 || end > len(out) || start >= end {
		return
	}
	data := out[start:end]
	if len(data)%aes.BlockSize != 0 { // the end of line before endstream
		data = bytes.TrimSuffix(data, []byte("\n"))
		data = bytes.TrimSuffix(data, []byte("\r"))
	}
	plain, ok := h.decrypt(data)
	if !ok {
		return
	}
	n := copy(data, plain)
	for i := n; i < len(data); i++ {
		data[i] = ' '
	}
}

// putString writes a decrypted string over its encrypted token, as a
// literal or hex string followed by spaces. The plaintext is at least 17
// bytes shorter than the ciphertext (IV and padding), so the hex form
// always fits over a hex token; over a literal one, a plaintext full of
// bytes to escape might not fit in either form, and is left empty.
func (h *aesV3Handler) putString(out []byte, s *pdfObj) {
	if s.start < 0 || s.end > len(out) || s.end-s.start < 2 {
		return
	}
	plain, ok := h.decrypt([]byte(s.s))
	if !ok {
		return
	}
	span := out[s.start:s.end]
	tok := literalString(plain)
	if len(tok) > len(span) {
		tok = "<" + hex.EncodeToString(plain) + ">"
	}
	if len(tok) > len(span) {
		tok = "()"
	}
	n := copy(span, tok)
	for i := n; i < len(span); i++ {
		span[i] = ' '
	}
}

func literalString(b []byte) string {
	var out bytes.Buffer
	out.WriteByte('(')
	for _, c := range b {
		switch c {
		case '(', ')', '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case '\r':
			out.WriteString(`\r`)
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte(')')
	return out.String()
}

// usesCryptFilter reports a stream with its own /Crypt filter (an
// /Identity one leaves it unencrypted), which the library cannot decode
// anyway.
func usesCryptFilter(d *pdfObj) bool {
	f := d.key("Filter")
	if f.name() == "Crypt" {
		return true
	}
	if f != nil && f.kind == pdfArr {
		for _, x := range f.arr {
			if x.name() == "Crypt" {
				return true
			}
		}
	}
	return false
}
