package research

import (
	"bytes"
	"compress/zlib"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// aesOpts shapes an AES-256 encrypted test file.
type aesOpts struct {
	r        int    // 5 or 6
	userPW   string // "" for a file that opens without asking
	literalU bool   // /U and /UE as literal strings, escapes and all
	encDict  string // replaces the encryption dictionary when set
	plainStr bool   // /StrF /Identity: strings are left unencrypted
	damage   func(objs []string)
}

// specHash is algorithm 2.B of PDF 32000-2 (7.6.4.3.4), written from the
// spec apart from the code under test; R5 stops at the first SHA-256.
func specHash(pw, salt, udata []byte, r int) []byte {
	k := sha256.Sum256(bytes.Join([][]byte{pw, salt, udata}, nil))
	key := k[:]
	if r == 5 {
		return key
	}
	var e []byte
	for round := 0; round < 64 || int(e[len(e)-1]) > round-32; round++ {
		var k1 []byte
		for range 64 {
			k1 = append(k1, pw...)
			k1 = append(k1, key...)
			k1 = append(k1, udata...)
		}
		blk, _ := aes.NewCipher(key[:16])
		e = make([]byte, len(k1))
		cipher.NewCBCEncrypter(blk, key[16:32]).CryptBlocks(e, k1)
		var mod int
		for _, c := range e[:16] {
			mod = (mod*256 + int(c)) % 3
		}
		switch mod {
		case 0:
			s := sha256.Sum256(e)
			key = s[:]
		case 1:
			s := sha512.Sum384(e)
			key = s[:]
		case 2:
			s := sha512.Sum512(e)
			key = s[:]
		}
	}
	return key[:32]
}

func aesCBC(key, iv, data []byte) []byte {
	blk, _ := aes.NewCipher(key)
	out := make([]byte, len(data))
	cipher.NewCBCEncrypter(blk, iv).CryptBlocks(out, data)
	return out
}

// aesEncrypt is a string or stream as an AES-256 (V5) file stores it: IV,
// then the PKCS#7-padded data in CBC.
func aesEncrypt(key, iv, data []byte) []byte {
	p := 16 - len(data)%16
	padded := append(bytes.Clone(data), bytes.Repeat([]byte{byte(p)}, p)...)
	return append(bytes.Clone(iv), aesCBC(key, iv, padded)...)
}

func pdfLiteral(b []byte) string {
	return "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`, "\r", `\r`).Replace(string(b)) + ")"
}

var reEncString = regexp.MustCompile(`\{\{(lit|hex):([^}]*)\}\}`)

// encryptPDFAES256 encrypts g with the standard security handler V5 (R5
// or R6, AESV3), computing /U /UE /O /OE /Perms for the user password
// and an owner password. Strings written {{lit:…}} or {{hex:…}} in the
// objects are encrypted into literal or hex strings.
func encryptPDFAES256(t *testing.T, g *pdfGen, o aesOpts) []byte {
	t.Helper()
	fileKey := sha256.Sum256([]byte("file key"))
	salt := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:8] }
	zero := make([]byte, 16)
	upw, opw := []byte(o.userPW), []byte("owner")
	u := append(append(specHash(upw, salt("uv"), nil, o.r), salt("uv")...), salt("uk")...)
	ue := aesCBC(specHash(upw, salt("uk"), nil, o.r), zero, fileKey[:])
	ow := append(append(specHash(opw, salt("ov"), u, o.r), salt("ov")...), salt("ok")...)
	oe := aesCBC(specHash(opw, salt("ok"), u, o.r), zero, fileKey[:])
	perms := make([]byte, 16)
	binary.LittleEndian.PutUint32(perms, uint32(0xfffff0c0))
	copy(perms[4:], "\xff\xff\xff\xffTadbxxxx")
	blk, _ := aes.NewCipher(fileKey[:])
	blk.Encrypt(perms, perms)
	for i, body := range g.objs {
		n := i + 1
		iv := sha256.Sum256(fmt.Appendf(nil, "iv %d", n))
		body = reEncString.ReplaceAllStringFunc(body, func(m string) string {
			sm := reEncString.FindStringSubmatch(m)
			if o.plainStr {
				return pdfLiteral([]byte(sm[2]))
			}
			c := aesEncrypt(fileKey[:], iv[:16], []byte(sm[2]))
			if sm[1] == "hex" {
				return fmt.Sprintf("<%x>", c)
			}
			return pdfLiteral(c)
		})
		start := strings.Index(body, "stream\n")
		end := strings.LastIndex(body, "\nendstream")
		if start >= 0 && end >= 0 {
			start += len("stream\n")
			data := aesEncrypt(fileKey[:], iv[16:], []byte(body[start:end]))
			body = regexp.MustCompile(`/Length \d+`).ReplaceAllString(body[:start], fmt.Sprintf("/Length %d", len(data))) + string(data) + body[end:]
		}
		g.objs[i] = body
	}
	str := func(b []byte) string { return fmt.Sprintf("<%x>", b) }
	if o.literalU {
		str = pdfLiteral
	}
	dict := o.encDict
	strf := "/StdCF"
	if o.plainStr {
		strf = "/Identity"
	}
	if dict == "" {
		dict = fmt.Sprintf("<< /Filter /Standard /V 5 /R %d /Length 256 /P -3904 /O %s /U %s /OE %s /UE %s /Perms %s "+
			"/CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF %s >>",
			o.r, str(ow), str(u), str(oe), str(ue), str(perms), strf)
	}
	enc := g.add(dict)
	if o.damage != nil {
		o.damage(g.objs)
	}
	out := g.bytes()
	return bytes.Replace(out, []byte("/Root 1 0 R >>"), fmt.Appendf(nil, "/Root 1 0 R /Encrypt %d 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] >>", enc), 1)
}

// aesDoc is a two-page document: an unfiltered content stream, a
// Flate-compressed one (its decrypted data is shorter than the stream and
// padded), and form field values in encrypted literal and hex strings.
func aesDoc(t *testing.T, o aesOpts) []byte {
	g, f := statementPDF()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Second page from a compressed stream"}})))
	zw.Close()
	c := g.add(fmt.Sprintf("<< /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", z.Len(), z.String()))
	g.pages = append(g.pages, g.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", f, c)))
	name := g.add("<< /FT /Tx /T {{lit:holder}} /TU {{hex:Account holder}} /V {{lit:Ada (the) Lovelace\\}} >>")
	g.catalog = fmt.Sprintf("/AcroForm << /Fields [%d 0 R] >> ", name)
	return encryptPDFAES256(t, g, o)
}

// An AES-256 PDF with an empty user password (permissions only) opens in
// any viewer; it used to be refused as "AES-256, which asky cannot read
// yet". R6 (PDF 2.0) and R5 (deprecated Acrobat 9), /U as hex or literal,
// strings encrypted or left plain (/StrF /Identity).
func TestAES256EmptyUserPasswordIsRead(t *testing.T) {
	for _, o := range []aesOpts{{r: 6}, {r: 5}, {r: 6, literalU: true}, {r: 6, plainStr: true}} {
		t.Run(fmt.Sprintf("R%d literal=%v plain=%v", o.r, o.literalU, o.plainStr), func(t *testing.T) {
			inOrder(t, extractPDFBytes(t, aesDoc(t, o)),
				"Statement of account for the third quarter", "Closing balance 1234 euros",
				"Second page from a compressed stream", "Account holder: Ada (the) Lovelace\\")
		})
	}
}

// One that needs a user password is refused in one line that says how to
// decrypt it.
func TestAES256WithPasswordSaysHowToDecrypt(t *testing.T) {
	for _, r := range []int{5, 6} {
		_, err := Extract("locked.pdf", aesDoc(t, aesOpts{r: r, userPW: "secret"}))
		if err == nil || !strings.Contains(err.Error(), "encrypted PDF: it needs a password") || !strings.Contains(err.Error(), "qpdf --decrypt --password=") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("R%d: %v", r, err)
		}
	}
}

// The hashes against /U of files written by a real tool (qpdf 12 via
// pikepdf): /U starts with the hash of the user password and /U's
// validation salt.
func TestHashV5KnownAnswer(t *testing.T) {
	for _, c := range []struct {
		r    int
		pw   string
		u    string
		want bool
	}{
		{6, "", "bd5bcf8a124a9e7c76d997b27203a150c1b2c6bcb7832c7b29a39e84e051c63f51d76ae8b23b973e7dd926e2c1a88fa3", true},
		{5, "", "1f2d072ddfed7faa50660ee735818400b096c52ab701aefe21433d3f80f197333a786b1c0d65461fdda511afdd0be281", true},
		{6, "secret", "68e4c322274c66cb0ba92791e55581ecfc85170a42195e5a5cfb11f051814816674e19e939216e28d6b7f38c67976113", true},
		{6, "", "68e4c322274c66cb0ba92791e55581ecfc85170a42195e5a5cfb11f051814816674e19e939216e28d6b7f38c67976113", false},
	} {
		u, _ := hex.DecodeString(c.u)
		if got := bytes.Equal(hashV5([]byte(c.pw), u[32:40], nil, c.r), u[:32]); got != c.want {
			t.Errorf("R%d password %q: match %v, want %v", c.r, c.pw, got, c.want)
		}
		if got := bytes.Equal(specHash([]byte(c.pw), u[32:40], nil, c.r), u[:32]); got != c.want {
			t.Errorf("test encrypter's hash, R%d password %q: match %v, want %v", c.r, c.pw, got, c.want)
		}
	}
}

// Hostile encryption: a malformed dictionary gives a one-line error (or,
// when the dictionary is not AES-256 at all, the library's), never a
// panic or a hang.
func TestAES256MalformedEncryptDict(t *testing.T) {
	cf := "/CF << /StdCF << /CFM /AESV3 >> >> /StmF /StdCF /StrF /StdCF"
	u48 := "<" + strings.Repeat("ab", 48) + ">"
	for name, dict := range map[string]string{
		"no U":            "<< /Filter /Standard /V 5 /R 6 /UE <00> " + cf + " >>",
		"short U":         "<< /Filter /Standard /V 5 /R 6 /U <0011> /UE <00> " + cf + " >>",
		"short UE":        "<< /Filter /Standard /V 5 /R 6 /U " + u48 + " /UE <0011> " + cf + " >>",
		"wrong U":         "<< /Filter /Standard /V 5 /R 6 /U " + u48 + " /UE " + u48 + " " + cf + " >>",
		"R7":              "<< /Filter /Standard /V 5 /R 7 /U " + u48 + " /UE " + u48 + " " + cf + " >>",
		"R as a name":     "<< /Filter /Standard /V 5 /R /Six /U " + u48 + " /UE " + u48 + " " + cf + " >>",
		"AESV2 under V5":  "<< /Filter /Standard /V 5 /R 6 /U " + u48 + " /UE " + u48 + " /CF << /StdCF << /CFM /AESV2 >> >> /StmF /StdCF >>",
		"missing filter":  "<< /Filter /Standard /V 5 /R 6 /U " + u48 + " /UE " + u48 + " /StmF /Nope >>",
		"other handler":   "<< /Filter /Acme /V 5 /R 6 >>",
		"V 5.5":           "<< /Filter /Standard /V 5.5 /R 6 >>",
		"not a dict":      "42",
		"deep nesting":    "<< /Filter /Standard /V 5 /R 6 /U " + strings.Repeat("[", 100000) + " >>",
		"unterminated":    "<< /Filter /Standard /V 5 /R 6 /U (abc",
		"hex junk":        "<< /Filter /Standard /V 5 /R 6 /U <zz" + strings.Repeat("9", 95) + "> /UE <> " + cf + " >>",
		"huge key length": "<< /Filter /Standard /V 5 /R 6 /Length 99999999999999999999 /U " + u48 + " >>",
	} {
		t.Run(name, func(t *testing.T) {
			data := aesDoc(t, aesOpts{r: 6, encDict: dict})
			done := make(chan error, 1)
			go func() {
				_, err := decryptAESV3(data) // no panic
				_ = err
				_, err = Extract("hostile.pdf", data)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("hang")
			}
		})
	}
}

// Damaged streams in an AES-256 file: absurd, negative or indirect
// /Length values and a missing endstream are found by their endstream or
// skipped; truncations and byte flips of a good file never panic or hang,
// and errors stay on one line.
func TestAES256DamagedStreams(t *testing.T) {
	reLength := regexp.MustCompile(`/Length \d+ >>\nstream`)
	for name, length := range map[string]string{"absurd": "9999999999999", "negative": "-7", "indirect": "99 0 R", "not a number": "/Big"} {
		data := aesDoc(t, aesOpts{r: 6, damage: func(objs []string) {
			for i, o := range objs {
				objs[i] = reLength.ReplaceAllString(o, "/Length "+length+" >>\nstream")
			}
		}})
		out, err := decryptAESV3(data)
		if err != nil || !bytes.Contains(out, []byte("(Closing balance 1234 euros) Tj")) {
			t.Errorf("%s /Length: %v", name, err)
		}
		if _, err := Extract("damaged.pdf", data); err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s /Length: multi-line error %q", name, err)
		}
	}
	good := aesDoc(t, aesOpts{r: 6})
	noEnd := bytes.ReplaceAll(good, []byte("endstream"), []byte("endstreaX"))
	if out, err := decryptAESV3(noEnd); err != nil || !bytes.Contains(out, []byte("(Closing balance 1234 euros) Tj")) {
		t.Errorf("no endstream: %v", err)
	}
	start := time.Now()
	for i := 0; i < len(good) && time.Since(start) < 15*time.Second; i += 5 {
		decryptAESV3(good[:i]) //nolint:errcheck // only panics matter
		flip := bytes.Clone(good)
		flip[i] ^= 0x5a
		if _, err := Extract("flip.pdf", flip); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("flip at %d: multi-line error %q", i, err)
		}
	}
}

// FuzzScanPDF: the object scanner and the decrypter never panic.
func FuzzScanPDF(f *testing.F) {
	f.Add([]byte("1 0 obj << /Length 5 >> stream\nabcde\nendstream endobj trailer << /Encrypt 1 0 R >>"))
	f.Add([]byte("1 0 obj (unterminated \\( string"))
	f.Add([]byte("1 0 obj <</A [[[[<<>>]]]] /B <a b c> /C /N#41me>> endobj"))
	f.Add([]byte("trailer << /Encrypt << /Filter /Standard /V 5 /R 6 /U <00> >> >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scanPDF(data)
		decryptAESV3(data) //nolint:errcheck // only panics matter
	})
}

// Hostile shapes scan in linear time: streams that never end (each would
// search the rest of the file for its endstream), endless nesting,
// unterminated strings, references and trailers by the million.
func TestScanPDFHostileIsLinear(t *testing.T) {
	for name, in := range map[string]string{
		"endless streams": strings.Repeat("1 0 obj << /Length 5 >> stream\n", 1<<15),
		"nesting":         strings.Repeat("<< [ ", 1<<18),
		"strings":         strings.Repeat("1 1 (", 1<<18),
		"references":      strings.Repeat("1 0 R ", 1<<18),
		"trailers":        strings.Repeat("trailer << /Encrypt 1 0 R ", 1<<16),
	} {
		start := time.Now()
		scanPDF([]byte(in))
		decryptAESV3([]byte(in)) //nolint:errcheck // only time and panics matter
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %s", name, d)
		}
	}
}

// A PDF 2.0 file (whose AES-256 encryption is the 2.0 one) used to be
// refused as "not a PDF file: invalid header".
func TestPDF20HeaderIsRead(t *testing.T) {
	for _, o := range []*aesOpts{nil, {r: 6}} {
		var data []byte
		if o == nil {
			g := newPDFGen()
			g.page(map[string]int{"F1": g.font("Helvetica", 500, "")}, contentOf([]placed{{font: "F1", size: 11, x: 72, y: 700, text: "Closing balance 1234 euros"}}))
			data = g.bytes()
		} else {
			data = aesDoc(t, *o)
		}
		data = bytes.Replace(data, []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1)
		inOrder(t, extractPDFBytes(t, data), "Closing balance 1234 euros")
	}
}
