#!/usr/bin/env bash
# setup-cuda.sh installs what `go build -tags cuda` and `go generate
# ./gnnlib/cuda/...` need on a Debian machine: the CUDA 11.8 headers and
# libcuda stub (nvidia-cuda-dev) and nvcc (nvidia-cuda-toolkit), both from
# Debian's non-free component, plus a C compiler for cgo.
#
# Why Debian's CUDA 11.8 and not a newer toolkit: gorgonia.org/cu v0.9.6 calls
# the 3-argument cuCtxCreate, which CUDA 13 headers no longer declare. The
# binary built against 11.8 still runs on a CUDA 13 driver, because it only
# loads libcuda.so.1 (the driver) and hands the driver PTX to JIT-compile.
#
# It is idempotent: it enables non-free only when no apt source lists it yet
# and installs only the packages that are missing. It needs root (or sudo) and
# about 3 GB of disk.
#
# Usage: install/setup-cuda.sh
set -euo pipefail

sudo=""
if [[ $(id -u) -ne 0 ]]; then
	sudo="sudo"
fi

pkgs=(nvidia-cuda-dev nvidia-cuda-toolkit gcc)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "setup-cuda: already installed: ${pkgs[*]}"
	exit 0
fi

# Enable non-free (and contrib, which some of the toolkit's dependencies
# live in) in whichever source format this system uses.
if ! grep -rqsE '(^|[[:space:]])non-free([[:space:]]|$)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
		$sudo sed -i -E '/^Components:/ { / non-free( |$)/! s/$/ contrib non-free/ }' /etc/apt/sources.list.d/debian.sources
	else
		codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
		echo "deb http://deb.debian.org/debian $codename main contrib non-free" |
			$sudo tee /etc/apt/sources.list.d/gnnlab-non-free.list >/dev/null
	fi
fi

$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

nvcc --version | tail -n 2
