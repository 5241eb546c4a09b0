#!/usr/bin/env bash
# clang_format.sh - print the path of a clang-format of the pinned version ($CLANG_FORMAT_PIN),
# installing it from PyPI into ${BUILD:-build}/format-venv on first use. Exit 1, with the reason on
# stderr, when none can be had (no network and no clang-format of that version here).
# $CLANG_FORMAT: a clang-format named by hand (used if it is of the pinned version).
set -uo pipefail
pin=${CLANG_FORMAT_PIN:?CLANG_FORMAT_PIN is not set}
venv=${BUILD:-build}/format-venv
version_ok() { "$1" --version 2>/dev/null | grep -q "clang-format version $pin\b"; }
for c in "${CLANG_FORMAT:-}" "$venv/bin/clang-format" "$(command -v clang-format 2>/dev/null)"; do
    [ -n "$c" ] && [ -x "$c" ] && version_ok "$c" && { echo "$c"; exit 0; }
done
log=$(mktemp)
if { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check --timeout 30 "clang-format==$pin"; } >"$log" 2>&1 \
    && version_ok "$venv/bin/clang-format"; then
    rm -f "$log"
    echo "$venv/bin/clang-format"
    exit 0
fi
echo "no clang-format $pin here, and pip could not install it (pip install clang-format==$pin, or CLANG_FORMAT=PATH): $(tail -n 1 "$log")" >&2
rm -f "$log"
exit 1
