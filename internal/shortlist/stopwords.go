package shortlist

// stopwords is a common English stopword list (YAKE's, trimmed to words a
// search query never needs). Question words are included: "how does X
// work" should search for X.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are",
		"aren't", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
		"by", "can", "can't", "cannot", "could", "couldn't", "did", "didn't", "do", "does", "doesn't", "doing",
		"don't", "down", "during", "each", "either", "else", "even", "ever", "every", "few", "for", "from",
		"further", "get", "gets", "give", "given", "go", "going", "got", "had", "hadn't", "has", "hasn't",
		"have", "haven't", "having", "he", "he'd", "he'll", "he's", "her", "here", "here's", "hers", "herself",
		"him", "himself", "his", "how", "how's", "however", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "into",
		"is", "isn't", "it", "it's", "its", "itself", "just", "let", "let's", "like", "make", "many", "may",
		"me", "might", "more", "most", "much", "must", "mustn't", "my", "myself", "need", "no", "nor", "not",
		"now", "of", "off", "on", "once", "one", "only", "or", "other", "ought", "our", "ours", "ourselves",
		"out", "over", "own", "please", "same", "shall", "shan't", "she", "she'd", "she'll", "she's", "should",
		"shouldn't", "show", "so", "some", "such", "tell", "than", "that", "that's", "the", "their", "theirs",
		"them", "themselves", "then", "there", "there's", "these", "they", "they'd", "they'll", "they're",
		"they've", "this", "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "use",
		"used", "using", "very", "via", "want", "was", "wasn't", "way", "we", "we'd", "we'll", "we're", "we've",
		"well", "were", "weren't", "what", "what's", "when", "when's", "where", "where's", "whether", "which",
		"while", "who", "who's", "whom", "whose", "why", "why's", "will", "with", "within", "without", "won't",
		"would", "wouldn't", "yet", "you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself",
		"yourselves", "explain", "describe", "know", "find", "etc", "vs", "versus", "compare", "happens",
		"happen", "understand", "handle", "handles", "works", "work", "looking", "thing", "things", "really",
		"something", "anything", "actually",
	} {
		m[w] = true
	}
	return m
}()

func isStopword(w string) bool { return stopwords[w] }
