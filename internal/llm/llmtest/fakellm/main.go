// Command fakellm serves the scripted fake LLM on loopback for trying asky
// by hand without a model:
//
//	go run ./internal/llm/llmtest/fakellm [-script responses.json] [-delay 40ms]
//
// It prints the base_url to put in an [api.NAME] table and serves until
// interrupted. Without a script it answers with the keyword table of
// llmtest.Keywords, streaming slowly enough to watch.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/askygo/asky/internal/llm/llmtest"
)

func main() {
	script := flag.String("script", "", "JSON script of responses to serve first (see package llmtest)")
	delay := flag.Duration("delay", 40*time.Millisecond, "delay between streamed frames")
	flag.Parse()
	s := llmtest.New()
	defer s.Close()
	if *script != "" {
		if err := s.EnqueueFile(*script); err != nil {
			fmt.Fprintln(os.Stderr, "fakellm:", err)
			os.Exit(1)
		}
	}
	s.SetDefault(func(r llmtest.Request) llmtest.Response {
		resp := llmtest.Keywords(r)
		resp.Pieces = 12
		resp.FrameDelay = llmtest.Duration(*delay)
		return resp
	})
	fmt.Println(s.URL())
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
}
