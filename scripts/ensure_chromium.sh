#!/usr/bin/env bash
# Make sure a headless browser exists for the `cepkit plot` HTML test (part of `make install`).
# tests/cepkit/test_plot.py loads the page in Chromium; without one that test skips, saying why.
# When no chromium is on PATH, install Debian/Ubuntu's `chromium` if apt-get and root are available.
set -u
found() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }
if found; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "no headless browser; installing the system Chromium (apt-get install chromium)"
  (apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; })
  if found; then exit 0; fi
fi
echo "warning: no chromium here; the headless-browser test of 'cepkit plot --out FILE.html' will skip" >&2
exit 0
