package research

// ExtractorVersion is the version of the extractor of a format (as
// FormatOf names it). Each document records the version that produced
// its text and chunks, and re-ingesting an unchanged file (same content
// hash) skips it only when that version is current: without it, an
// upgrade that reads a format better kept the old text of every file
// that had not changed. Bump a format's number with a change that makes
// its files read differently (more text, another order, other sections);
// re-ingest then re-extracts the files of that format only. Documents
// ingested before versions were kept count as 0 and are re-read once.
//
// Every format is at 1: versions were first stored in the release that
// also brought AES-256, form-object and line-end-hyphen reading to PDF,
// and everything ingested before is 0. A bump is a case here, e.g.
// `case "pdf": return 2`.
func ExtractorVersion(format string) int {
	return 1
}

// extractorVersion is the version the ingest stamps on, and requires
// of, documents of format.
func (in *Ingester) extractorVersion(format string) int {
	if in.ExtractorVersions != nil {
		return in.ExtractorVersions(format)
	}
	return ExtractorVersion(format)
}
