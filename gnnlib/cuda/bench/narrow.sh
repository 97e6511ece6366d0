#!/usr/bin/env bash
# narrow.sh checks and times GEMMv2N (gemm2n_*, the 256x64 narrow-output
# tile) against GEMMv2 in one short run on the GPU machine: the GEMM tests
# (all families, narrow shapes included), the agreement tests with v2n as
# tune.GEMM (gnnlib/cuda/internal/tune), then gnnbench's GEMM rates and
# the GCN epochs for v2 and v2n. Binaries as for run.sh; logs go to ${OUT:-/tmp}.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
(cd gnnlib/cuda && GNNLAB_TEST_GEMM=v2n timeout 50 ../../.gpubin/cuda.test -test.v -test.timeout 45s \
	-test.run 'TestGEMMKernels|TestMatMul|TestDeviceSuite/Ops|TestPTXFresh') >"$out/gotest.log" 2>&1
rc=$?
echo "go test -tags cuda (GEMM + agreement tests, tune.GEMM v2n): exit $rc"
grep -E "^(--- |ok|FAIL|PASS)|_test.go:[0-9]+:" "$out/gotest.log" | grep -v "^    --- PASS" | head -25
timeout 85 .gpubin/gnnbench -only gemm,gcn -gemm v2,v2n >"$out/go.tsv" 2>"$out/go.err"
echo "gnnbench: exit $?"; tail -3 "$out/go.err"
echo
grep -E "48|47|products" "$out/go.tsv" | grep -E "gemm-fp32|gcn" | grep -v "256x256\|100x256" | sort -t$'\t' -k2,2 -k3,3 -s
