#!/usr/bin/env bash
# gemm2.sh checks and times the MatMul kernel families (v1: gemm_*, v2:
# gemm2_*, v2k8: gemm2k8_*) in one go on the GPU machine: the GEMM tests
# (float64 reference and v1 agreement, all three forms, odd edges, split-K,
# layer shapes), then gnnbench's GEMM rates at the layers' shapes, the GATv2
# layers and the GCN epochs once per family. Binaries as for run.sh;
# logs go to ${OUT:-/tmp}.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
(cd gnnlib/cuda && timeout 45 ../../.gpubin/cuda.test -test.v -test.timeout 40s \
	-test.run 'TestGEMMKernels|TestMatMul|TestVec4|TestPTXFresh') >"$out/gotest.log" 2>&1
echo "go test -tags cuda (GEMM tests): exit $?"
grep -E "^(--- |ok|FAIL|PASS)|_test.go:[0-9]+:" "$out/gotest.log" | head -30
(cd gnnlib/cuda && GNNLAB_TEST_GEMM=v2 timeout 30 ../../.gpubin/cuda.test -test.v -test.timeout 25s \
	-test.run 'TestDeviceSuite/(Ops|Training)|TestMatMul$') >"$out/gotest2.log" 2>&1
echo "go test -tags cuda (agreement tests, tune.GEMM v2): exit $?"
grep -E "^(--- |ok|FAIL|PASS)|_test.go:[0-9]+:" "$out/gotest2.log" | grep -v "^    --- PASS" | head -20
timeout 115 .gpubin/gnnbench -only gemm,gat,gcn -gemm "${GEMMS:-v1,v2,v2k8}" >"$out/go.tsv" 2>"$out/go.err"
echo "gnnbench: exit $?"; tail -3 "$out/go.err"
echo
printf 'side\twhat\tgraph\tvariant\tms\tpeak GiB\tnote\n'
sort -t$'\t' -k2,2 -k3,3 -k4,4 -s "$out/go.tsv" | grep -v cora
