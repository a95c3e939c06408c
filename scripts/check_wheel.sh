#!/usr/bin/env bash
# Build the sdist and wheel a user would install, check them, install the wheel (not editable) into a fresh venv
# and run it there, away from this checkout: `vmem --version` must print the built version, `vmem demo` must run
# (the bundled model, examples and templates inside the wheel), and `vmem init` must lay down the store template's
# CI files. Used by .ci/run and by the release workflow; OUT (default: a temporary folder) keeps the dist files.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
work="$(mktemp -d)"
python -m pip install --quiet build twine
python -m build --outdir "$out" . > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
python -m twine check --strict "$out"/*
wheel=$(ls "$out"/*.whl)
version=$(python -c "import sys, zipfile, email; z = zipfile.ZipFile(sys.argv[1]); \
name = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA')); \
print(email.message_from_bytes(z.read(name))['Version'])" "$wheel")

python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$wheel"
cd "$work"  # nothing of the checkout is importable from here
test "$("$work/venv/bin/vmem" --version)" = "vmem $version" || { echo "vmem --version is not $version" >&2; exit 1; }
"$work/venv/bin/python" -c "import vmem, sys; sys.exit('vmem imported from a checkout' if 'site-packages' not in vmem.__file__ else 0)"
"$work/venv/bin/vmem" demo "$work/demo" > /dev/null
"$work/venv/bin/vmem" init "$work/store" > /dev/null
test -f "$work/store/.github/workflows/vmem.yml" && test -f "$work/store/.gitlab-ci.yml"
echo "wheel $(basename "$wheel") ($version): built, checked, installed and run"
