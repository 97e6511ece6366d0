#!/usr/bin/env bash
# wgrad.sh checks and times GEMMv2S (gemm_skinny*_tn for weight gradients
# at most 32 wide, K split from 1024 rows on) against GEMMv2N, and
# GraphReplay with and without segments, in one run on the GPU machine:
# the GEMM and replay tests (the first test opens the device, whose JIT of
# gnn.ptx took over 20 s on a fresh H100, hence the separate process and
# limit), gnnbench's wgrad part beside wgrad_torch.py, the nn epochs for
# both families and each segment size, and pyg_bench.py's epochs.
# Binaries as for run.sh (.gpubin); logs go to ${OUT:-/tmp}. The run of
# 2026-12-06 08:40 in BENCHMARKS.md ran this sequence with shorter limits.
set -uo pipefail
out="${OUT:-/tmp}"; bench="$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
(cd gnnlib/cuda && timeout 60 ../../.gpubin/cuda.test -test.v -test.timeout 58s \
	-test.run 'TestPTXFresh|TestSkinnySplit|TestMatMulGradOnDevice|TestGraphReplaySegment|TestGraphReplayEpochs|TestMapping') >"$out/gotest.log" 2>&1
echo "go test (device open, new tests): exit $?"
(cd gnnlib/cuda && timeout 60 ../../.gpubin/cuda.test -test.v -test.timeout 58s \
	-test.run 'TestGEMMKernels|TestDeviceSuite$|TestDeviceSuiteGraphReplay') >>"$out/gotest.log" 2>&1
echo "go test (GEMM, suites): exit $?"
grep -E "^(--- |ok|FAIL|PASS)" "$out/gotest.log" | head -25
timeout 30 .gpubin/gnnbench -only wgrad -gemm v2s,v2n -products=false >"$out/go.tsv" 2>"$out/go.err"
echo "gnnbench wgrad: exit $?"
timeout 30 python3 "$bench/wgrad_torch.py" >"$out/torch.tsv" 2>"$out/torch.err"
echo "wgrad_torch: exit $?"
timeout 90 .gpubin/gnnbench -only gcn,gatv2,api -gemm v2s,v2n -labels-ab=false -replay-seg 0,16,64 -products=false -profile >>"$out/go.tsv" 2>>"$out/go.err"
echo "gnnbench epochs: exit $?"
ONLY=gcn,gatv2,api PRODUCTS=0 timeout 60 python3 "$bench/pyg_bench.py" >"$out/pyg.tsv" 2>"$out/pyg.err"
echo "pyg_bench: exit $?"
echo
cat "$out/go.tsv" "$out/torch.tsv" "$out/pyg.tsv" | grep -v api-profile | sort -t$'\t' -k2,2 -k3,3 -k4,4 -s | cut -c1-200
