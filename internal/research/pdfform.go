package research

import (
	"strings"

	"github.com/ledongthuc/pdf"
)

// Bounds on a form's field tree: a malformed or hostile file (a field
// whose kids point back at it, many times over) must not make extraction
// walk forever.
const (
	maxFormFields = 2000
	maxFormVisits = 20000
	maxFormDepth  = 8
)

// formFields returns the filled-in values of a PDF form (AcroForm), one
// "name: value" line each under a "Form fields" line, or "" when there are
// none. The values live in the form's field tree, not in the page text, so
// a filled application or tax form would otherwise be ingested without
// the answers written into it. A field is named by its tooltip (/TU, what
// a viewer shows) or else its name; unticked boxes and empty fields are
// left out.
func formFields(r *pdf.Reader) string {
	fields := r.Trailer().Key("Root").Key("AcroForm").Key("Fields")
	if fields.Kind() != pdf.Array {
		return ""
	}
	var lines []string
	visits := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		for i := 0; i < v.Len() && len(lines) < maxFormFields && visits < maxFormVisits; i++ {
			visits++
			f := v.Index(i)
			if f.Kind() != pdf.Dict {
				continue
			}
			if kids := f.Key("Kids"); kids.Kind() == pdf.Array && depth < maxFormDepth {
				walk(kids, depth+1)
			}
			if line := formField(f); line != "" {
				lines = append(lines, line)
			}
		}
	}
	walk(fields, 0)
	if len(lines) == 0 {
		return ""
	}
	return "Form fields:\n" + strings.Join(lines, "\n") + "\n"
}

// formField is one field's "name: value" line, or "" when it has no value.
func formField(f pdf.Value) string {
	v := f.Key("V")
	var value string
	switch v.Kind() {
	case pdf.String:
		value = v.Text()
	case pdf.Name:
		if n := v.Name(); n != "Off" {
			value = n // a ticked box or a chosen radio button ("Yes")
		}
	case pdf.Array: // a list box with several choices
		var vs []string
		for i := 0; i < v.Len(); i++ {
			if s := strings.TrimSpace(v.Index(i).Text()); s != "" {
				vs = append(vs, s)
			}
		}
		value = strings.Join(vs, ", ")
	}
	value = CollapseSpace(cleanGlyphs(value))
	if value == "" {
		return ""
	}
	name := strings.TrimSpace(f.Key("TU").Text())
	if name == "" {
		name = strings.TrimSpace(f.Key("T").Text())
	}
	if name == "" {
		return value
	}
	return CollapseSpace(name) + ": " + value
}
