#!/usr/bin/env bash
# lab-notebooks.sh keeps the working copies that `make lab` opens: it copies
# each committed notebooks/*.ipynb into DIR (default build/lab), so that
# JupyterLab's autosave and its .ipynb_checkpoints never touch the committed
# files.
#
# A copy is refreshed when the committed notebook changed and the copy is
# still what this script last wrote (a hash of it is kept in DIR/.sync/);
# a copy the user edited is never overwritten: the script says so and leaves
# it. Delete the copy to get the committed version again.
#
# Usage: install/lab-notebooks.sh [DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/build/lab}"
mkdir -p "$dir/.sync"

hash() { sha256sum "$1" | cut -d' ' -f1; }

for src in "$root"/notebooks/*.ipynb; do
	name="$(basename "$src")"
	dst="$dir/$name"
	stamp="$dir/.sync/$name.sha256"
	want="$(hash "$src")"
	if [[ -f "$dst" ]]; then
		last="$(cat "$stamp" 2>/dev/null || true)"
		[[ "$want" == "$last" ]] && continue # committed notebook unchanged since the copy
		if [[ "$(hash "$dst")" != "$last" ]]; then
			[[ "$(hash "$dst")" == "$want" ]] && { echo "$want" >"$stamp"; continue; }
			echo "lab-notebooks: keeping your edited $dst; notebooks/$name changed (delete the copy to take the new one)" >&2
			continue
		fi
	fi
	cp "$src" "$dst"
	echo "$want" >"$stamp"
done
