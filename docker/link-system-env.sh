#!/bin/sh
# Make `repro.envs.python_for(NAME)` answer with this image's python3 instead of a built
# venv: create the env directory it expects, with bin/python linked to the system
# interpreter and the "built" marker, after checking that interpreter imports the smoke
# module (sglang). Used by the GPU worker image, whose python already has sglang. A base
# image that already carries the env built by repro.envs.build (the local CPU variant,
# docker/base-images.sh) keeps it.
set -eu
name="${1:?usage: link-system-env.sh ENV_NAME}"
python="$(readlink -f "$(command -v "${PYTHON:-python3}")")"
target="$("$python" -m repro.envs.build "$name" --print-path)"
if [ -f "$target/.errata-env-ok" ] && ! grep -q "system python" "$target/.errata-env-ok"; then
    echo "$name: the base image's built env at $target is kept"
    exit 0
fi
smoke="$(cat "repro/envs/$name/smoke.txt" 2>/dev/null || echo sglang)"
version="$("$python" -c "import $smoke; print(getattr($smoke, '__version__', '?'))")"
expected="${name#*-}"
if [ "$version" != "$expected" ]; then
    echo "$name: the image's $smoke is $version, not $expected; use a matching SGLANG_IMAGE" >&2
    exit 1
fi
mkdir -p "$target/bin"
ln -sf "$python" "$target/bin/python"
echo "$name: system python $python of the image (not a built venv)" >"$target/.errata-env-ok"
echo "$name -> $python ($target)"
