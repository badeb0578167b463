#!/usr/bin/env bash
# System packages the tests need on a fresh Debian machine (root): bubblewrap, the
# sandbox of codefrontier.sandbox.terminal (tests/test_terminal.py), qemu-user, which
# runs the kernels mode's SFT steps as another processor (tests/test_kernels.py), and
# chromium, the headless browser that opens Inspect's viewer and Snakemake's report
# (tests/test_browser.py, scripts/screenshots.py).
# Idempotent and quiet:
# nothing is fetched when every package is installed already.
set -euo pipefail

packages=(bubblewrap qemu-user chromium)
missing=()
for package in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi
