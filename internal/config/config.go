// Package config loads, merges and validates asky's TOML configuration.
// It never logs: problems are returned as Diagnostics for the caller to show.
package config

import "time"

// Config is the merged configuration. Zero values are replaced by Defaults().
type Config struct {
	General        General                 `toml:"general"`
	API            map[string]API          `toml:"api"`
	Models         map[string]Model        `toml:"models"`
	Limits         Limits                  `toml:"limits"`
	Summarizer     Summarizer              `toml:"summarizer"`
	Session        Session                 `toml:"session"`
	Research       Research                `toml:"research"`
	Memory         Memory                  `toml:"memory"`
	Fetch          Fetch                   `toml:"fetch"`
	Input          Input                   `toml:"input"`
	Prompts        map[string]any          `toml:"prompts"`
	UserPrompts    map[string]string       `toml:"user_prompts"`
	CommandPresets map[string]string       `toml:"command_presets"`
	Tool           map[string]CustomTool   `toml:"tool"`
	Email          Email                   `toml:"email"`
	PushData       map[string]PushEndpoint `toml:"push_data"`
	XMPP           XMPP                    `toml:"xmpp"`
	Daemon         map[string]any          `toml:"daemon"`

	// QueryClassification is [query_classification] (shortlist.go).
	QueryClassification QueryClassification `toml:"query_classification"`

	// Paths where this configuration was found and where data lives.
	Paths Paths `toml:"-"`
	// Files lists the config files that were read, in merge order.
	Files []string `toml:"-"`
	// Diagnostics are warnings found while loading (unknown keys, loose
	// permissions on files holding secrets, …).
	Diagnostics []Diagnostic `toml:"-"`

	// origins maps each dotted key and table to the file that set it last.
	origins map[string]string
	// raws holds each file's bytes, to point errors at their line.
	raws map[string][]byte
	// modelOrder lists aliases as the files define them; the first one is
	// the default when nothing else picks one, as in the original.
	modelOrder []string
}

// General holds the [general] table.
type General struct {
	DefaultModel       string `toml:"default_model"`
	SummarizationModel string `toml:"summarization_model"`
	// FastPaths answers a few exact phrases ("call me X", "remember …",
	// "forget …", "what do you remember about me") locally, without a
	// model call.
	FastPaths bool `toml:"fast_paths"`
	MaxTurns  int  `toml:"max_turns"`
	// RequestTimeout is the per-request LLM timeout in seconds.
	RequestTimeout int `toml:"request_timeout"`
	// StreamIdleTimeout is the longest gap, in seconds, allowed between two
	// streamed chunks before the stream is treated as stalled.
	StreamIdleTimeout  int    `toml:"stream_idle_timeout"`
	DefaultContextSize int    `toml:"default_context_size"`
	UserAgent          string `toml:"user_agent"`
	LLMUserAgent       string `toml:"llm_user_agent"`
	SearchProvider     string `toml:"search_provider"`
	SearxngURL         string `toml:"searxng_url"`
	SerperAPIURL       string `toml:"serper_api_url"`
	SerperAPIKeyEnv    string `toml:"serper_api_key_env"`
	TavilyAPIURL       string `toml:"tavily_api_url"`
	TavilyAPIKeyEnv    string `toml:"tavily_api_key_env"`
	BraveAPIURL        string `toml:"brave_api_url"`
	BraveAPIKeyEnv     string `toml:"brave_api_key_env"`
	DuckDuckGoURL      string `toml:"duckduckgo_url"`
	DBPath             string `toml:"db_path"`
	DBPathEnvVar       string `toml:"db_path_env_var"`
	ShortlistEnabled   *bool  `toml:"shortlist_enabled"`
	// InterfaceModel runs the plain-query helper before a standard turn
	// (asky-behavior.md §5.1 step 3); empty = off.
	InterfaceModel                   string `toml:"interface_model"`
	InterfacePlainQueryEnabled       *bool  `toml:"interface_model_plain_query_enabled"`
	InterfacePromptEnrichmentEnabled bool   `toml:"interface_model_plain_query_prompt_enrichment_enabled"`
	CompactBanner                    bool   `toml:"compact_banner"`
	// TerminalContextLines is -tl's line count when given without N.
	TerminalContextLines int `toml:"terminal_context_lines"`
	// QuerySummaryMaxChars and AnswerSummaryMaxChars cap the summaries
	// -c -s sends for long history turns.
	QuerySummaryMaxChars  int `toml:"query_summary_max_chars"`
	AnswerSummaryMaxChars int `toml:"answer_summary_max_chars"`
	// ArchiveDir is where -o without a path writes HTML reports; empty
	// means <data dir>/archive.
	ArchiveDir    string `toml:"archive_dir"`
	MarkdownStyle string `toml:"markdown_style"` // auto (from the terminal background), dark, light, dracula, tokyo-night, pink, ascii, notty, or a glamour JSON style file; $GLAMOUR_STYLE wins
}

// API is one [api.NAME] endpoint.
type API struct {
	// Type is "openai" (chat-completions, the default) or "anthropic".
	Type string `toml:"type"`
	// BaseURL is the API root, e.g. https://api.openai.com/v1.
	BaseURL string `toml:"base_url"`
	// URL is the original asky's full endpoint (…/chat/completions); it is
	// accepted and converted to BaseURL.
	URL       string `toml:"url,omitempty"`
	APIKeyEnv string `toml:"api_key_env,omitempty"`
	APIKeyCmd string `toml:"api_key_cmd,omitempty"`
	APIKey    Secret `toml:"api_key,omitempty"`
	// Headers are extra HTTP headers sent with every request.
	Headers map[string]string `toml:"headers,omitempty"`
}

// Model is one [models.ALIAS] entry.
type Model struct {
	API         string         `toml:"api"`
	ID          string         `toml:"id"`
	ContextSize int            `toml:"context_size,omitzero"`
	MaxTurns    int            `toml:"max_turns,omitzero"`
	Parameters  map[string]any `toml:"parameters,omitempty"`
	// PriceIn and PriceOut are USD per million tokens, used for cost.
	PriceIn  float64 `toml:"price_in,omitzero"`
	PriceOut float64 `toml:"price_out,omitzero"`
	// PriceCacheRead and PriceCacheWrite price prompt-cache tokens; zero
	// means price_in (see Prices).
	PriceCacheRead  float64 `toml:"price_cache_read,omitzero"`
	PriceCacheWrite float64 `toml:"price_cache_write,omitzero"`
	// SourceShortlistEnabled mirrors the original's per-model override.
	SourceShortlistEnabled *bool `toml:"source_shortlist_enabled,omitempty"`
	ImageSupport           bool  `toml:"image_support,omitempty"`
	// BaseURL, APIKeyEnv and APIKey override the [api] table's for this
	// model only: the original's models inherit them unless they set them.
	BaseURL   string `toml:"base_url,omitempty"`
	APIKeyEnv string `toml:"api_key_env,omitempty"`
	APIKey    Secret `toml:"api_key,omitempty"`
}

// Limits holds the [limits] table.
type Limits struct {
	MaxURLDetailLinks      int `toml:"max_url_detail_links"`
	SearchSnippetMaxChars  int `toml:"search_snippet_max_chars"`
	QueryExpansionMaxDepth int `toml:"query_expansion_max_depth"`
	MaxPromptFileSize      int `toml:"max_prompt_file_size"`
	MaxRetries             int `toml:"max_retries"`
	InitialBackoff         int `toml:"initial_backoff"`
	MaxBackoff             int `toml:"max_backoff"`
	RetryBudget            int `toml:"retry_budget"` // seconds of waiting across all retries of one call; 0 = no bound
	SearchTimeout          int `toml:"search_timeout"`
	FetchTimeout           int `toml:"fetch_timeout"`
	// DailyCostUSD refuses new questions once today's recorded cost
	// reaches it; zero means no limit.
	DailyCostUSD float64 `toml:"daily_cost_usd,omitzero"`
}

// Summarizer holds the [summarizer] table.
type Summarizer struct {
	// LazyThresholdChars is the length above which -c -s summarizes a
	// history question or answer.
	LazyThresholdChars        int `toml:"lazy_threshold_chars"`
	HierarchicalTriggerChars  int `toml:"hierarchical_trigger_chars"`
	HierarchicalMaxInputChars int `toml:"hierarchical_max_input_chars"`
	HierarchicalChunkTarget   int `toml:"hierarchical_chunk_target_chars"`
	HierarchicalChunkOverlap  int `toml:"hierarchical_chunk_overlap_chars"`
	HierarchicalMapMaxOutput  int `toml:"hierarchical_map_max_output_chars"`
}

// Session holds the [session] table.
type Session struct {
	CompactionThreshold int    `toml:"compaction_threshold"`
	CompactionStrategy  string `toml:"compaction_strategy"`
	IdleTimeoutMinutes  int    `toml:"idle_timeout_minutes"`
}

// Research holds the [research] table.
type Research struct {
	Enabled                        bool      `toml:"enabled"`
	LocalDocumentRoots             []string  `toml:"local_document_roots"`
	AllowAbsolutePathsOutsideRoots bool      `toml:"allow_absolute_paths_outside_roots"`
	AllowedIngestionExtensions     []string  `toml:"allowed_ingestion_extensions"`
	CacheTTLHours                  int       `toml:"cache_ttl_hours"`
	ChunkSize                      int       `toml:"chunk_size"`
	ChunkOverlap                   int       `toml:"chunk_overlap"`
	MaxChunksPerRetrieval          int       `toml:"max_chunks_per_retrieval"`
	MaxLinksPerURL                 int       `toml:"max_links_per_url"`
	MaxRelevantLinks               int       `toml:"max_relevant_links"`
	MemoryMaxResults               int       `toml:"memory_max_results"`
	DenseWeight                    float64   `toml:"dense_weight"`
	LexicalWeight                  float64   `toml:"lexical_weight"`
	MinRelevance                   float64   `toml:"min_relevance"`
	Embedding                      Embedding `toml:"embedding"`
	Deep                           Embedding `toml:"deep"` // the deep tier (deep.go)

	// SourceShortlist is [research.source_shortlist] (shortlist.go).
	SourceShortlist SourceShortlist `toml:"source_shortlist"`
	// Query expansion keys as the original's code reads them; see
	// Research.QueryExpansion for the merge with the shortlist table.
	QueryExpansionEnabled *bool  `toml:"query_expansion_enabled,omitempty"`
	QueryExpansionMode    string `toml:"query_expansion_mode,omitempty"`
	MaxSubQueries         int    `toml:"max_sub_queries,omitzero"`
	// Evidence extraction (preload.go).
	EvidenceExtractionEnabled   bool `toml:"evidence_extraction_enabled,omitempty"`
	EvidenceExtractionMaxChunks int  `toml:"evidence_extraction_max_chunks,omitzero"`
}

// Embedding selects the embedder used for the corpus, memory recall,
// shortlist scoring and extract_links ranking.
type Embedding struct {
	// Provider is "builtin" (minilm-l6-static or hash-v1, offline),
	// "static" (a model2vec-style model directory at Path), "openai" or
	// "ollama".
	Provider string `toml:"provider"`
	Model    string `toml:"model"`
	// Path is the model directory of provider "static".
	Path    string `toml:"path"`
	BaseURL string `toml:"base_url"`
	// API names an [api.NAME] entry to borrow base_url and key from.
	API            string `toml:"api"`
	APIKeyEnv      string `toml:"api_key_env"`
	Dimensions     int    `toml:"dimensions"`
	DocumentPrefix string `toml:"document_prefix"`
	QueryPrefix    string `toml:"query_prefix"`
	BatchSize      int    `toml:"batch_size"`
}

// Memory holds the [memory] table.
type Memory struct {
	Enabled             bool     `toml:"enabled"`
	RecallTopK          int      `toml:"recall_top_k"`
	RecallMinSimilarity float64  `toml:"recall_min_similarity"`
	DedupThreshold      float64  `toml:"dedup_threshold"`
	GlobalTriggers      []string `toml:"global_triggers"`
	// MarkdownDir, when set, mirrors every memory as markdown there
	// (MEMORY.md and daily logs); relative to the config directory.
	MarkdownDir string `toml:"markdown_dir"`
}

// Fetch holds the [fetch] table for the guarded web client.
type Fetch struct {
	AllowPrivateNetworks bool     `toml:"allow_private_networks"`
	AllowHosts           []string `toml:"allow_hosts"`
	UserAgent            string   `toml:"user_agent"`
	ConnectTimeout       int      `toml:"connect_timeout"`
	Timeout              int      `toml:"timeout"`
	MaxBodyBytes         int64    `toml:"max_body_bytes"`
	// MaxPagesPerTurn and MaxBytesPerTurn bound what one question may
	// download (cache hits are free); 0 means no limit.
	MaxPagesPerTurn int    `toml:"max_pages_per_turn"`
	MaxBytesPerTurn int64  `toml:"max_bytes_per_turn"`
	Proxy           string `toml:"proxy"`
}

// Input holds the [input] table.
type Input struct {
	// StdinMaxBytes caps piped stdin added to a query.
	StdinMaxBytes int `toml:"stdin_max_bytes"`
}

// Paths are the directories asky uses.
type Paths struct {
	ConfigDir string
	DataDir   string
	CacheDir  string
	StateDir  string
	// DB is the SQLite database file.
	DB string
}

// Diagnostic is a non-fatal problem found while loading.
type Diagnostic struct {
	File    string
	Key     string
	Message string
}

func (d Diagnostic) String() string {
	s := d.File
	if d.Key != "" {
		s += ": " + d.Key
	}
	return s + ": " + d.Message
}

// Timeout returns the LLM request timeout.
func (g General) Timeout() time.Duration { return time.Duration(g.RequestTimeout) * time.Second }

// Secret is a string that never prints itself.
type Secret string

// String redacts the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString redacts the value for %#v.
func (s Secret) GoString() string { return s.String() }

// MarshalText redacts the value when encoded (TOML, JSON).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the literal value.
func (s *Secret) UnmarshalText(b []byte) error { *s = Secret(b); return nil }

// Reveal returns the secret; call it only where a header is built.
func (s Secret) Reveal() string { return string(s) }
