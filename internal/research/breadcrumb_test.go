package research

import "testing"

func TestBreadcrumbOneSeparator(t *testing.T) {
	tests := []struct{ title, section, want string }{
		{"Pager", "", "Pager"},
		{"Pager", "Pager > Rollback", "Pager › Rollback"},
		{"Pager", "Pager > Rollback > Deep detail", "Pager › Rollback › Deep detail"},
		// A PDF outline that repeats the title, in another case.
		{"GDPR", "gdpr > Article 26", "GDPR › Article 26"},
		{"Release notes", "Go 1.26 > Runtime", "Release notes › Go 1.26 › Runtime"},
		{"", "Intro", "Intro"},
	}
	for _, tt := range tests {
		if got := Breadcrumb(tt.title, tt.section); got != tt.want {
			t.Errorf("Breadcrumb(%q, %q) = %q, want %q", tt.title, tt.section, got, tt.want)
		}
	}
}
