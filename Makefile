# gnnlab — targets wrap the go tool and the project-local Python venv.
# `make lab` starts JupyterLab with the Go kernel; `make test` runs what CI runs.

GO      ?= go
PYTHON  ?= python3
BIN     := bin/gnnlab
VENV    := .venv
VPY     := $(VENV)/bin/python
# Jupyter Enterprise Gateway's own environment (its pins clash with JupyterLab 4's).
GW_VENV := .venv-gateway
# Extra arguments for `jupyter lab`, e.g. make lab LAB_ARGS="--no-browser --port 8890".
LAB_ARGS ?=
# Jupyter refuses to run as root without --allow-root (containers, CI images).
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# Tests and notebooks read datasets from GNNLAB_DATA; default to the shared
# folder beside the repository when it exists (it does in CI).
SHARED_DATA := $(abspath ../shared/datasets)
ifneq ($(wildcard $(SHARED_DATA)),)
GNNLAB_DATA ?= $(SHARED_DATA)
endif
ifdef GNNLAB_DATA
export GNNLAB_DATA
endif

.PHONY: all build lab venv install test lint check-generate test-go test-race \
	test-e2e test-browser check-cuda notebooks generate bench bench-kernel bench-cells bench-redefs warm-cells clean distclean

all: build

## build: compile the one binary into bin/gnnlab.
build:
	$(GO) build -o $(BIN) ./cmd/gnnlab

## venv: create .venv with the pinned Python packages (no-op when up to date).
venv:
	PYTHON=$(PYTHON) install/setup-venv.sh $(VENV)

## lab: build, install the kernelspec into .venv and start JupyterLab on
## working copies of notebooks/ in build/lab (the committed files stay clean).
# JUPYTER_PATH puts the venv's kernelspec ahead of any older one in the
# user's own Jupyter directories. install/lab-notebooks.sh refreshes a copy
# only while the user has not edited it.
LAB_DIR := build/lab
lab: build venv
	$(BIN) install --prefix $(abspath $(VENV))
	install/lab-notebooks.sh $(abspath $(LAB_DIR))
	JUPYTER_PATH=$(abspath $(VENV))/share/jupyter \
		$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(abspath $(LAB_DIR)) $(LAB_ROOT) $(LAB_ARGS)

## install: install the kernelspec for the current user (~/.local/share/jupyter).
install: build
	$(BIN) install --user

## test: everything CI checks.
test: lint check-generate test-go test-race test-e2e test-browser check-cuda

## check-cuda: install the CUDA headers (Debian non-free) and compile and vet
## the cuda configuration; no GPU is needed to build it. Its tests run too:
## without a GPU the device tests skip (the driver library, libcuda1, comes
## with the headers), and those that need none (the PTX hash, the cuInit
## interposition, the no-device error) check the cuda build itself.
check-cuda:
	install/setup-cuda.sh
	$(MAKE) cuda
	CGO_ENABLED=1 $(GO) test -tags cuda -count=1 ./gnnlib/cuda/...

## test-browser: JupyterLab with the gnnlab kernel, driven in headless Chromium.
# install/setup-browser.sh installs Debian's chromium and playwright-core.
test-browser: build venv warm-cells
	install/setup-browser.sh
	GNNLAB_BROWSER_TEST=1 $(GO) test -count=1 ./kernel/e2e/browser

## notebooks: execute every notebook headless into build/notebooks (.ipynb and
## .html) and publish the HTML in notebooks/html, stamped with the commit and
## the machine (TestPublishedHTML fails when its code differs from the notebooks').
notebooks: build
	mkdir -p build/notebooks notebooks/html
	for nb in notebooks/*.ipynb; do \
		name=$$(basename $$nb .ipynb); \
		$(BIN) run -o build/notebooks/$$name.ipynb --html build/notebooks/$$name.html $$nb || exit 1; \
		cp build/notebooks/$$name.html notebooks/html/$$name.html; \
	done
	{ echo "Made by \`make notebooks\` on $$(date -u +%Y-%m-%d) from commit $$(git rev-parse --short HEAD)$$(git diff --quiet -- notebooks/*.ipynb || echo ' (notebooks modified)')"; \
	  echo "on $$(uname -sm), $$(nproc) CPU cores, $$(if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L | head -1; else echo 'no GPU (the GPU cells show results recorded on one)'; fi)."; } > notebooks/html/MADE.txt

## lint: gofmt, go vet, staticcheck and go mod tidy -diff must be silent.
# testdata/ holds cell programs, which need not be valid Go files.
lint:
	@unformatted="$$(find . -name '*.go' -not -path './.venv/*' -not -path '*/testdata/*' -print0 | xargs -0 -r gofmt -l)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@$(GO) mod tidy -diff || { echo "lint: go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }

## generate: regenerate generated files (yaegi symbol tables, later PTX).
generate:
	$(GO) generate ./...

## check-generate: regenerate and fail if that changed anything. It runs
## with nvcc hidden (a stand-in that fails is first on PATH): the committed
## PTX must be checkable on a machine without the CUDA toolkit, and gen.sh
## compiles only when the .cu sources' hash differs from the PTX's stamp.
# Comparing the tree's state before and after (rather than against HEAD alone)
# keeps the check meaningful in a working tree with uncommitted edits; in a
# clean checkout, as in CI, it is `git diff --exit-code` plus new files.
NO_NVCC := build/no-nvcc
check-generate:
	@mkdir -p $(NO_NVCC) && printf '%s\n' '#!/bin/sh' \
		'echo "check-generate: nvcc is hidden here; the .cu sources changed: run go generate ./gnnlib/cuda (install/setup-cuda.sh installs nvcc) and commit gnn.ptx" >&2' \
		'exit 1' >$(NO_NVCC)/nvcc && chmod +x $(NO_NVCC)/nvcc
	@before="$$(git status --porcelain=v1 --untracked-files=all; git diff)"; \
	PATH="$(abspath $(NO_NVCC)):$$PATH" $(GO) generate ./... || exit 1; \
	after="$$(git status --porcelain=v1 --untracked-files=all; git diff)"; \
	if [ "$$before" != "$$after" ]; then \
		echo "check-generate: go generate changed the tree; commit the regenerated files:"; \
		git status --short; git --no-pager diff --stat; exit 1; \
	fi

## test-go: all Go tests.
test-go:
	$(GO) test ./...
	GNNLAB_COMPILED=off $(GO) test ./interp/client -run '^$$' -fuzz '^FuzzCells$$' -fuzztime 25s

## test-race: the concurrent parts under the race detector.
# A package's tests that run past -timeout panic with every goroutine's
# stack, naming a hanging test after 6 minutes instead of go test's 10.
# The slowest package, interp/client, takes about 70 s in CI and 175 s on
# two cores shared with five other go test runs (load average 14).
# test-go keeps the default: gnnlib/nn took 343 s under that load.
RACE_TIMEOUT ?= 6m
test-race:
	$(GO) test -race -timeout $(RACE_TIMEOUT) ./kernel/... ./interp/...

## test-e2e: Python end-to-end tests through real Jupyter clients (kernel/e2e),
## Jupyter Enterprise Gateway among them (install/setup-gateway-venv.sh).
test-e2e: build venv warm-cells
	PYTHON=$(PYTHON) install/setup-gateway-venv.sh $(GW_VENV)
	GNNLAB_BIN=$(abspath $(BIN)) GNNLAB_GATEWAY_VENV=$(abspath $(GW_VENV)) $(VPY) -m pytest kernel/e2e $(PYTEST_ARGS)

## bench: Go benchmarks, the kernel benchmark, then gnnlab beside PyG on the CPU.
bench: bench-go bench-kernel bench-pyg

.PHONY: bench-go
bench-go:
	$(GO) test -bench=. -run='^$$' ./...

## bench-pyg: epoch times of GCN, GraphSAGE, GAT and LeNet-5 beside PyTorch
## Geometric on the CPU (same data, same threads: THREADS=N), with ratios.
.PHONY: bench-pyg
bench-pyg:
	install/setup-bench-venv.sh .venv-bench
	GO=$(GO) gnnlib/nn/bench/run.sh

## warm-cells: build what compiled cells link in plugin mode into the go
## command's cache (gnnlab install does it too; minutes the first time, a
## second after), so that a session's first compiled cell does not wait.
warm-cells: build
	$(BIN) install --prefix $(abspath build/warm-cells)

## bench-cells: CPU-bound programs (testdata/bench) as go run, as an
## interpreted cell and as a compiled cell, side by side: ratios and the
## compiled cells' build+load latencies (the README's table).
bench-cells:
	GNNLAB_BENCH_CELLS=1 $(GO) test -count=1 -run '^TestCellsSpeed$$' -v ./interp

## bench-redefs: the memory and build time of one compiled function
## redefined REDEFS times (1,000 by default) in one session, past the
## session's cap on plugins (the README's figures). KEEP_PAGES=1 leaves the
## plugins' file pages resident (the baseline of their MADV_PAGEOUT).
REDEFS ?= 1000
bench-redefs:
	GNNLAB_BENCH_REDEFS=$(REDEFS) GNNLAB_BENCH_KEEP_PAGES=$(KEEP_PAGES) $(GO) test -count=1 -timeout 60m -run '^TestRedefinitionMemory$$' -v ./interp

## bench-kernel: start time and cell round trip, gnnlab beside ipykernel, and
## the round trip with CurveZMQ encryption off and on.
bench-kernel: build venv
	$(VPY) kernel/e2e/bench/bench_kernel.py --binary $(abspath $(BIN)) $(BENCH_ARGS)

## cuda: build and vet the CUDA backend (-tags cuda; needs cgo and the CUDA
## 11.8 headers from install/setup-cuda.sh; the kernels' PTX is committed).
.PHONY: cuda bench-gpu
cuda:
	CGO_ENABLED=1 $(GO) build -tags cuda ./gnnlib/cuda/...
	CGO_ENABLED=1 $(GO) vet -tags cuda ./gnnlib/cuda/...

## bench-gpu: build the GPU test and benchmark binaries into .gpubin; run
## them on a GPU machine with gnnlib/cuda/bench/run.sh.
bench-gpu:
	mkdir -p .gpubin
	CGO_ENABLED=1 $(GO) test -c -tags cuda -o .gpubin/cuda.test ./gnnlib/cuda
	CGO_ENABLED=1 $(GO) build -tags cuda -o .gpubin/gnnbench ./gnnlib/cuda/bench/gnnbench
	CGO_ENABLED=1 $(GO) build -tags cuda -o .gpubin/gnnlab ./cmd/gnnlab
	CGO_ENABLED=1 $(GO) test -c -tags cuda -o .gpubin/dist.test ./gnnlib/dist
	@echo "built .gpubin/cuda.test, .gpubin/dist.test, .gpubin/gnnbench and .gpubin/gnnlab; on the GPU machine, from the repository root:"
	@echo "  OUT=/tmp gnnlib/cuda/bench/run.sh            # GPU tests, gnnbench and PyG side by side"
	@echo "  (cd gnnlib/cuda && ../../.gpubin/cuda.test -test.run XXX -test.bench TensorAPIEpoch -test.benchtime 20x)"
	@echo "  gnnlib/cuda/bench/turbo.sh                   # GATv2 layer: gnnbench, PyG and turbo-gnn (sdist in .benchdata)"
	@echo "  notebooks/record-gpu.sh                      # the GPU results that notebooks show without a GPU"
	@echo "  .gpubin/dist.test -test.run GPUs -test.v     # two GPUs over NCCL (GNNLAB_NCCL=path/libnccl.so.2 if not found)"

## clean: remove build outputs and test caches; keeps .venv, the browser
## test's node_modules and your notebook copies in build/lab.
clean:
	rm -rf bin .gpubin build/notebooks $(NO_NVCC) kernel/e2e/.pytest_cache
	find . -name __pycache__ -type d -not -path './.venv*' -prune -exec rm -rf {} +

## distclean: clean, and remove what the set-up scripts installed into the
## checkout (.venv, .venv-bench, .venv-gateway, node_modules) and build/ with build/lab.
distclean: clean
	rm -rf build $(VENV) $(GW_VENV) .venv-bench .benchdata kernel/e2e/browser/node_modules
