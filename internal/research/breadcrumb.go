package research

import "strings"

// Breadcrumb is the "title › heading › subheading" line shown for a hit.
// A section path joins headings with " > " and usually starts with the
// document title already (a markdown H1, a PDF outline's first entry), so
// a leading title is dropped and every level gets the one separator.
func Breadcrumb(title, section string) string {
	var parts []string
	if section != "" {
		parts = strings.Split(section, " > ")
	}
	if len(parts) > 0 && strings.EqualFold(strings.TrimSpace(parts[0]), strings.TrimSpace(title)) {
		parts = parts[1:]
	}
	if title != "" {
		parts = append([]string{title}, parts...)
	}
	return strings.Join(parts, " › ")
}
