#!/usr/bin/env bash
# run.sh runs gnnlib/cuda's GPU tests and both benchmark sides on the GPU
# machine and prints one table. It expects the binaries built here with
#   CGO_ENABLED=1 go test -c -tags cuda -o .gpubin/cuda.test ./gnnlib/cuda
#   CGO_ENABLED=1 go build -tags cuda -o .gpubin/gnnbench ./gnnlib/cuda/bench/gnnbench
# and is run from the repository root; logs go to ${OUT:-/tmp}.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
# The suite took longer than 240 s on a fresh H100 (2026-12-07: 682 tests
# by then, the 48 s JIT of gnn.ptx included), so it gets 420 s; a device
# call of 600 s then has room for little else.
(cd gnnlib/cuda && timeout 430 ../../.gpubin/cuda.test -test.v -test.timeout 420s) >"$out/gotest.log" 2>&1
echo "go test -tags cuda: exit $?"; grep -E "^(--- FAIL|ok|FAIL|PASS)|_test.go:[0-9]+:" "$out/gotest.log" | head -40
echo "passed: $(grep -cE '^\s*--- PASS' "$out/gotest.log"), skipped: $(grep -cE '^\s*--- SKIP' "$out/gotest.log"), failed: $(grep -cE '^\s*--- FAIL' "$out/gotest.log")"
timeout 300 .gpubin/gnnbench "$@" >"$out/go.tsv" 2>"$out/go.err"; echo "gnnbench: exit $?"; tail -3 "$out/go.err"
PYTHONUNBUFFERED=1 timeout 240 python3 gnnlib/cuda/bench/pyg_bench.py >"$out/pyg.tsv" 2>"$out/pyg.err"; echo "pyg_bench: exit $?"; tail -3 "$out/pyg.err"
echo
printf 'side\twhat\tgraph\tvariant\tms\tpeak GiB\tnote\n'
cat "$out/go.tsv" "$out/pyg.tsv" | sort -t$'\t' -k2,2 -k3,3 -k4,4 -s
