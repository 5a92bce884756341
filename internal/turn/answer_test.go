package turn

import "testing"

func TestCleanAnswer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<think>hmm</think>\n# Title\n\nBody", "# Title\n\nBody"},
		{"<thought>plan</thought># Title", "# Title"},
		{"[thought]plan[/thought]\n# Title", "# Title"},
		// Gemini's leaked scratchpad: preamble, tool replay lines, action notes.
		{"analysisThe user wants the weather. I will search.\nassistantcommentary to=functions.web_search json{\"q\":\"weather\"}\n# Weather Today\n\nSunny.",
			"# Weather Today\n\nSunny."},
		{"analysis I should answer directly.\n\nAction: answer\n\nassistantcommentary done\n# Answer\n\nYes.", "# Answer\n\nYes."},
		// An action note is one line: the answer under it stays.
		{"assistantcommentary done\nAction: search\nThe answer is 42.\nMore.", "The answer is 42.\nMore."},
		// Without the commentary marker nothing but whitespace is touched.
		{"analysis of the data shows growth.\n\nAction: none", "analysis of the data shows growth.\n\nAction: none"},
	}
	for _, c := range cases {
		if got := cleanAnswer(c.in); got != c.want {
			t.Errorf("cleanAnswer(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
