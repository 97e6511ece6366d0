#!/usr/bin/env bash
# setup-browser.sh installs what the JupyterLab browser test needs
# (kernel/e2e/browser): Debian's chromium and the pinned playwright-core
# from npm into kernel/e2e/browser/node_modules. Playwright never downloads a
# browser of its own: the test points it at /usr/bin/chromium.
#
# It is idempotent: each part is skipped when it is already there.
#
# Usage: install/setup-browser.sh
# Environment: CHROMIUM overrides the browser path to check (default
# /usr/bin/chromium).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/kernel/e2e/browser"
chromium="${CHROMIUM:-/usr/bin/chromium}"

if [[ ! -x "$chromium" ]]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "setup-browser: $chromium not found and no apt-get; install Chromium and set CHROMIUM" >&2
		exit 1
	fi
	sudo=""
	if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
	echo "setup-browser: installing chromium (Debian package)" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "setup-browser: npm not found; install Node.js 18 or later (Debian: apt-get install nodejs npm)" >&2
	exit 1
fi
# package.json pins playwright-core; PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD is a
# second guard: no browser build is fetched.
want="$(sed -n 's/.*"playwright-core": *"\([^"]*\)".*/\1/p' "$dir/package.json")"
have="$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/playwright-core/package.json" 2>/dev/null || true)"
if [[ "$have" != "$want" ]]; then
	echo "setup-browser: installing playwright-core $want into $dir/node_modules" >&2
	(cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent)
fi
echo "setup-browser: ready ($("$chromium" --version 2>/dev/null || echo chromium))" >&2
