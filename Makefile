# asky — build, test and demo targets. Everything builds with CGO_ENABLED=0.
GO        ?= go
export CGO_ENABLED := 0
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/askygo/asky/internal/build.Version=$(VERSION)
BIN       := bin/asky
PREFIX    ?= $(HOME)/.local

.PHONY: build test demo bench eval lint completions check-completions install clean

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/asky

test:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# demo runs the main job offline on embedded defaults in a throwaway home.
# It never needs a network or a model.
DEMO_HOME := $(CURDIR)/bin/demo-home
demo: build
	@rm -rf $(DEMO_HOME) && mkdir -p $(DEMO_HOME)
	@echo "== asky --help"; ASKY_HOME=$(DEMO_HOME) ./$(BIN) --help
	@echo; echo "== asky history --help"; ASKY_HOME=$(DEMO_HOME) ./$(BIN) history --help
	@echo; echo "== asky history list (empty history)"; ASKY_HOME=$(DEMO_HOME) ./$(BIN) history list || true

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

completions: build
	./$(BIN) completion bash > completions/asky.bash
	./$(BIN) completion zsh > completions/_asky
	./$(BIN) completion fish > completions/asky.fish
	./$(BIN) completion powershell > completions/asky.ps1

check-completions: completions
	git diff --exit-code completions/

install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/asky

clean:
	rm -rf bin
