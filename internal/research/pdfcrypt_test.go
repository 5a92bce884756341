package research

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"fmt"
	"strings"
	"testing"
)

// pdfPad is the standard security handler's password padding.
var pdfPad = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

// encryptPDF encrypts g's streams with the standard security handler,
// revision 3, 128-bit RC4, and user password pw (empty: the file opens
// without asking, as most "secured" published PDFs do). It returns the
// file as a viewer would get it.
func encryptPDF(t *testing.T, g *pdfGen, pw string) []byte {
	t.Helper()
	id := []byte("0123456789abcdef")
	owner := bytes.Repeat([]byte{0x5a}, 32) // any 32 bytes: only key derivation reads it
	perms := int32(-3904)
	h := md5.New()
	h.Write(append([]byte(pw), pdfPad[:32-len(pw)]...))
	h.Write(owner)
	p := uint32(perms)
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id)
	key := h.Sum(nil)
	for range 50 {
		s := md5.Sum(key[:16])
		key = s[:]
	}
	u := md5.Sum(append(append([]byte{}, pdfPad...), id...))
	user := u[:]
	for i := range 20 {
		k := bytes.Clone(key)
		for j := range k {
			k[j] ^= byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(user, user)
	}
	user = append(user, make([]byte, 16)...)
	for i, body := range g.objs {
		start := strings.Index(body, "stream\n")
		end := strings.LastIndex(body, "\nendstream")
		if start < 0 || end < 0 {
			continue
		}
		start += len("stream\n")
		n := i + 1
		ok := md5.Sum(append(bytes.Clone(key), byte(n), byte(n>>8), byte(n>>16), 0, 0))
		c, _ := rc4.NewCipher(ok[:])
		data := []byte(body[start:end])
		c.XORKeyStream(data, data)
		g.objs[i] = body[:start] + string(data) + body[end:]
	}
	enc := g.add(fmt.Sprintf("<< /Filter /Standard /V 2 /R 3 /Length 128 /P %d /O <%x> /U <%x> >>", perms, owner, user))
	out := g.bytes()
	return bytes.Replace(out, []byte("/Root 1 0 R >>"), fmt.Appendf(nil, "/Root 1 0 R /Encrypt %d 0 R /ID [<%x> <%x>] >>", enc, id, id), 1)
}

// statementPDF is a one-page statement to encrypt; f is its font.
func statementPDF() (g *pdfGen, f int) {
	g = newPDFGen()
	f = g.font("Helvetica", 500, "")
	g.page(map[string]int{"F1": f}, contentOf([]placed{
		{font: "F1", size: 11, x: 72, y: 700, text: "Statement of account for the third quarter"},
		{font: "F1", size: 11, x: 72, y: 680, text: "Closing balance 1234 euros"},
	}))
	return g, f
}

func encryptedDoc(t *testing.T, pw string) []byte {
	g, _ := statementPDF()
	return encryptPDF(t, g, pw)
}

// A PDF encrypted with an empty user password opens in any viewer without
// a password; it used to be refused as "password protected".
func TestEncryptedPDFEmptyUserPasswordIsRead(t *testing.T) {
	inOrder(t, extractPDFBytes(t, encryptedDoc(t, "")), "Statement of account for the third quarter", "Closing balance 1234 euros")
}

// One that needs a password is refused in one line that says what to do.
func TestEncryptedPDFWithPasswordSaysHowToDecrypt(t *testing.T) {
	_, err := Extract("locked.pdf", encryptedDoc(t, "secret"))
	if err == nil || !strings.Contains(err.Error(), "encrypted PDF: it needs a password") || !strings.Contains(err.Error(), "qpdf --decrypt") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%v", err)
	}
}

// An encryption the library gets wrong (streams that do not inflate after
// decryption) is named as such, not as a corrupt file.
func TestEncryptedPDFThatDoesNotDecryptSaysSo(t *testing.T) {
	g := newPDFGen()
	f := g.font("Helvetica", 500, "")
	g.page(map[string]int{"F1": f}, "")
	// The content stream claims Flate, but decrypts to plain text.
	c := g.stream("/Filter /FlateDecode", "BT /F1 11 Tf 72 700 Td (hidden) Tj ET")
	g.objs[g.pages[0]-1] = strings.Replace(g.objs[g.pages[0]-1], fmt.Sprintf("/Contents %d 0 R", g.pages[0]-1), fmt.Sprintf("/Contents %d 0 R", c), 1)
	_, err := Extract("odd.pdf", encryptPDF(t, g, ""))
	if err == nil || !strings.Contains(err.Error(), "encrypted PDF that asky could not decrypt") || strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("%v", err)
	}
}
