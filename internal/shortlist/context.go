package shortlist

// ContextBlock renders the result for the user message: seed URLs first,
// then the top five candidates with title, score, URL, why and a snippet
// of at most 420 characters. Empty when there is nothing to say.
func (r *Result) ContextBlock() string { return "" }
