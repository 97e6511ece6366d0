#!/usr/bin/env bash
# record-gpu.sh refreshes the GPU results that the notebooks show on
# machines without a GPU. On a machine with an NVIDIA GPU it runs each
# notebook that has a cell tagged recorded-gpu with a -tags cuda gnnlab
# binary and -p recordGPU=FILE, so that the GPU cells write what they
# measured to FILE, then stores FILE's contents in that cell (the device
# and the date come with them). The notebooks are rewritten in place with
# their outputs cleared, and copied with the JSON files and the executed
# notebooks into OUT (default build/record-gpu); copy the notebooks back
# into the repository's notebooks/ and commit them.
#
# Build the binary here (make bench-gpu puts it in .gpubin/gnnlab), then on
# the GPU machine, from the repository root:
#
#	notebooks/record-gpu.sh [GNNLAB] [NOTEBOOK.ipynb ...]
#
# GNNLAB defaults to .gpubin/gnnlab, the notebooks to every one with a
# recorded-gpu cell. Needs python3 (for the JSON edit). RECORD_PARAMS,
# if set, holds more name=value parameters for every notebook run, each
# passed as -p: only the GPU cells' results are kept, so parameters that
# size the CPU parts alone can shorten a recording, as in
#
#	RECORD_PARAMS="seeds=2 samplerNodes=20000" notebooks/record-gpu.sh .gpubin/gnnlab notebooks/07-scaling.ipynb
#
# (07's GPU cells train from gpuSeeds seeds, not seeds).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bin="${1:-.gpubin/gnnlab}"
shift || true
out="${OUT:-build/record-gpu}"
mkdir -p "$out"

if [[ ! -x "$bin" ]]; then
	echo "record-gpu.sh: no gnnlab binary at $bin (make bench-gpu builds .gpubin/gnnlab with -tags cuda)" >&2
	exit 2
fi
if [[ $# -gt 0 ]]; then
	notebooks=("$@")
else
	notebooks=()
	for nb in notebooks/*.ipynb; do
		grep -q '"recorded-gpu"' "$nb" && notebooks+=("$nb")
	done
fi
export GNNLAB_DATA="${GNNLAB_DATA:-$root/../shared/datasets}"

for nb in "${notebooks[@]}"; do
	name="$(basename "$nb" .ipynb)"
	json="$out/$name.gpu.json"
	rm -f "$json"
	echo "record-gpu.sh: running $nb on the GPU" >&2
	# A failed cell stops the run; the GPU cells catch their own failures
	# (they record nothing and say so), so a stop here is worth reporting
	# but what was written before it is still stored.
	params=(-p "recordGPU=$json")
	for p in ${RECORD_PARAMS:-}; do
		params+=(-p "$p")
	done
	"$bin" run "$nb" "${params[@]}" -o "$out/$name.executed.ipynb" ||
		echo "record-gpu.sh: $nb stopped at a failed cell (see $out/$name.executed.ipynb)" >&2
	if grep -q '^ *"measurement failed' "$out/$name.executed.ipynb" 2>/dev/null; then
		echo "record-gpu.sh: $nb: a GPU cell's measurement failed, so the record lacks its results (see $out/$name.executed.ipynb)" >&2
	fi
	if [[ ! -s "$json" ]]; then
		echo "record-gpu.sh: $nb wrote no GPU results to $json (no GPU? see $out/$name.executed.ipynb)" >&2
		exit 1
	fi
	python3 - "$json" "$nb" <<'PY'
import json, sys

results, path = sys.argv[1], sys.argv[2]
record = json.load(open(results, encoding="utf-8"))
if not record.get("device") or not record.get("values"):
    sys.exit(f"record-gpu.sh: {results} names no device or holds no values")
nb = json.load(open(path, encoding="utf-8"))
cells = [c for c in nb["cells"] if "recorded-gpu" in c.get("metadata", {}).get("tags", [])]
if len(cells) != 1:
    sys.exit(f"record-gpu.sh: {path} has {len(cells)} cells tagged recorded-gpu, want 1")
text = json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True)
if "`" in text:
    sys.exit("record-gpu.sh: the results contain a backquote")
src = ("// Results of the GPU cells below, recorded on a GPU by notebooks/record-gpu.sh,\n"
       "// which rewrites this cell. Do not edit by hand.\n"
       "recordedGPU := `" + text + "`")
parts = src.split("\n")
cells[0]["source"] = [p + "\n" for p in parts[:-1]] + [parts[-1]]
for c in nb["cells"]:
    if c["cell_type"] == "code":
        c["outputs"], c["execution_count"] = [], None
with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
print(f"record-gpu.sh: {path}: recorded {len(record['values'])} result lists from {record['device']}, {record['date']}", file=sys.stderr)
PY
	cp "$nb" "$out/$name.ipynb"
done
