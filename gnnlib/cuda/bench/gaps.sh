#!/usr/bin/env bash
# gaps.sh runs, in one go on the GPU machine, gnnlib/cuda's GPU tests, the
# tensor-API epoch benchmark and the gnnbench parts that measure the open
# targets of BENCHMARKS.md (GATv2 and GAT layers, GCN and GATv2 epochs,
# reordering, INT8, GEMM rates), without the PyG side. Binaries as for
# run.sh (make bench-gpu); logs go to ${OUT:-/tmp}.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
(cd gnnlib/cuda && timeout 150 ../../.gpubin/cuda.test -test.v -test.timeout 140s) >"$out/gotest.log" 2>&1
echo "go test -tags cuda: exit $?"
grep -E "^(--- FAIL|FAIL|PASS|ok)|_test.go:[0-9]+:" "$out/gotest.log" | head -40
echo "passed: $(grep -cE '^\s*--- PASS' "$out/gotest.log"), skipped: $(grep -cE '^\s*--- SKIP' "$out/gotest.log")"
(cd gnnlib/cuda && timeout 60 ../../.gpubin/cuda.test -test.run XXX -test.bench TensorAPIEpoch -test.benchtime 20x) >"$out/tapi.log" 2>&1
echo "tensor API bench: exit $?"; grep -E "^Benchmark" "$out/tapi.log"
timeout 220 .gpubin/gnnbench -only "${PARTS:-gat,gat1,gcn,gatv2,reorder,int8,gemm}" >"$out/go.tsv" 2>"$out/go.err"
echo "gnnbench: exit $?"; tail -3 "$out/go.err"
echo
printf 'side\twhat\tgraph\tvariant\tms\tpeak GiB\tnote\n'
cat "$out/go.tsv"
