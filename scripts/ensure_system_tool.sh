#!/usr/bin/env bash
# Make sure a system program some tests need is on PATH (part of `make install`):
#   bash scripts/ensure_system_tool.sh COMMAND DEBIAN_PACKAGE WHAT_NEEDS_IT
# chromium: the headless-browser test of `cepkit plot --out FILE.html` (tests/cepkit/test_plot.py);
# dot (graphviz): `cepkit explain --format svg` (tests/cepkit/test_explain_dot.py).
# When COMMAND is missing, install the Debian/Ubuntu package if apt-get and root are available; otherwise
# warn: the tests that need it skip, saying why.
set -u
cmd=$1; package=$2; purpose=$3
found() { command -v "$cmd" >/dev/null 2>&1 || { [ "$cmd" = chromium ] && command -v chromium-browser >/dev/null 2>&1; }; }
if found; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "no $cmd; installing the system package (apt-get install $package)"
  (apt-get install -y -q "$package" >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$package" >/dev/null 2>&1; })
  if found; then exit 0; fi
fi
echo "warning: no $cmd here; $purpose will skip" >&2
exit 0
