package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/askygo/asky/internal/llm/llmtest"
)

func main() {
	s := llmtest.New()
	defer s.Close()
	if len(os.Args) > 1 {
		if err := s.EnqueueFile(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if len(os.Args) > 2 {
		s.RequireKey(os.Args[2])
	}
	fmt.Println(s.URL())
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
}
