package config

// Defaults returns the built-in configuration. Values follow the original
// asky's code defaults, with its documented drift fixed deliberately
// (max_turns 20, idle timeout 10 minutes, summarizer 3200/32000/220).
func Defaults() *Config {
	return &Config{
		General: General{
			FastPaths:            true,
			MaxTurns:             20,
			RequestTimeout:       60,
			StreamIdleTimeout:    60,
			DefaultContextSize:   4096,
			UserAgent:            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
			LLMUserAgent:         "asky-go",
			SearchProvider:       "",
			SearxngURL:           "http://localhost:8888",
			SerperAPIURL:         "https://google.serper.dev/search",
			SerperAPIKeyEnv:      "SERPER_API_KEY",
			TavilyAPIURL:         "https://api.tavily.com/search",
			TavilyAPIKeyEnv:      "TAVILY_API_KEY",
			BraveAPIURL:          "https://api.search.brave.com/res/v1/web/search",
			BraveAPIKeyEnv:       "BRAVE_API_KEY",
			DuckDuckGoURL:        "https://html.duckduckgo.com/html/",
			DBPathEnvVar:         "ASKY_DB_PATH",
			TerminalContextLines: 10,
			// The original's caps for -c -s summaries.
			QuerySummaryMaxChars:  100,
			AnswerSummaryMaxChars: 2000,
			MarkdownStyle:         "auto",
		},
		Email:  defaultEmail(),
		XMPP:   xmppDefaults(),
		API:    map[string]API{},
		Models: map[string]Model{},
		Limits: Limits{
			MaxURLDetailLinks:      50,
			SearchSnippetMaxChars:  400,
			QueryExpansionMaxDepth: 5,
			MaxPromptFileSize:      10240,
			// The original waited up to 10 × 60 s in silence; a question
			// gives up within half a minute unless configured otherwise.
			MaxRetries:     3,
			InitialBackoff: 2,
			MaxBackoff:     30,
			RetryBudget:    30,
			SearchTimeout:  20,
			FetchTimeout:   20,
		},
		Summarizer: Summarizer{
			LazyThresholdChars:        2000,
			HierarchicalTriggerChars:  3200,
			HierarchicalMaxInputChars: 32000,
			HierarchicalChunkOverlap:  220,
			HierarchicalMapMaxOutput:  750,
		},
		Session: Session{
			CompactionThreshold: 80,
			CompactionStrategy:  "summary_concat",
			IdleTimeoutMinutes:  10,
		},
		Research: Research{
			Enabled: true,
			// Empty, not nil, so that `config show` lists the keys.
			LocalDocumentRoots:         []string{},
			AllowedIngestionExtensions: []string{},
			CacheTTLHours:              24,
			ChunkSize:                  256,
			ChunkOverlap:               48,
			MaxChunksPerRetrieval:      5,
			MaxLinksPerURL:             50,
			MaxRelevantLinks:           20,
			MemoryMaxResults:           10,
			DenseWeight:                0.75,
			LexicalWeight:              0.25,
			MinRelevance:               0.15,
			Embedding:                  Embedding{Provider: "builtin", Model: "minilm-l6-static", BatchSize: 32},
			Deep:                       Embedding{Provider: "builtin", Model: "minilm-l6", BatchSize: 32},
			SourceShortlist:            DefaultSourceShortlist(),
		},
		Memory: Memory{
			Enabled:             true,
			RecallTopK:          5,
			RecallMinSimilarity: 0.35,
			DedupThreshold:      0.90,
			GlobalTriggers:      []string{"remember globally:", "global memory:"},
		},
		Fetch: Fetch{
			AllowHosts:      []string{},
			ConnectTimeout:  5,
			Timeout:         20,
			MaxBodyBytes:    10 << 20,
			MaxPagesPerTurn: 40,
			MaxBytesPerTurn: 50 << 20,
		},
		Input:          Input{StdinMaxBytes: 100 << 10},
		UserPrompts:    map[string]string{},
		CommandPresets: map[string]string{},

		QueryClassification: DefaultQueryClassification(),
	}
}
