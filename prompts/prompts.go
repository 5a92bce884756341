// Package prompts embeds the text templates asky sends to models. It lives
// at the top level so the templates are easy to find and edit; //go:embed
// cannot reach outside a package directory, hence this tiny package.
package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"sync"
	"text/template"
)

//go:embed *.tmpl
var FS embed.FS

// templates are parsed on first use, not at package init: every asky
// process links this package, and `history list` or `--help` should not pay
// for parsing prompts they never send.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Option("missingkey=error").ParseFS(FS, "*.tmpl"))
})

// Render executes the named template (file name without .tmpl) with data.
func Render(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, name+".tmpl", data); err != nil {
		return "", fmt.Errorf("prompt %s: %w", name, err)
	}
	return buf.String(), nil
}

// Must is Render for templates whose data is known to be valid.
func Must(name string, data any) string {
	s, err := Render(name, data)
	if err != nil {
		panic(err)
	}
	return s
}
