#!/usr/bin/env bash
# Make headless Chromium available for the site-rendering test (Debian's package, ~35 s to install).
set -u
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[test] installing chromium (Debian package) for the site-rendering test" >&2
  (apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; })
fi
command -v chromium >/dev/null 2>&1
