#!/usr/bin/env bash
# R package vignettes from Debian packages, for the blind metadata sets (fetch_heldout4.sh,
# fetch_heldout5.sh): each package=version is fetched with apt and unpacked into DIR/x, and
# each <package>__<file>.pdf copied from its package's doc folder under usr/lib/R into DIR/pdfs.
#
#   bash benchmarks/fetch_vignettes.sh DIR PACKAGE=VERSION ... -- PACKAGE__FILE.pdf ...
set -euo pipefail
dir=${1:?usage: fetch_vignettes.sh DIR PACKAGE=VERSION ... -- PACKAGE__FILE.pdf ...}
shift
mkdir -p "$dir/debs" "$dir/x" "$dir/pdfs"
cd "$dir/debs"
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  pkg=${1%%=*}
  ls "${pkg}"_*.deb >/dev/null 2>&1 || apt-get download "$1"
  dpkg -x "$(ls "${pkg}"_*.deb | head -1)" "../x/$pkg"
  shift
done
shift  # the --
for name in "$@"; do
  short=${name%%__*}
  # the vignette itself under usr/lib/R (some packages also link it from usr/share/doc)
  src=$(find "../x/r-cran-$short" -type f -path "*/lib/R/*/doc/${name#*__}" | head -1)
  cp "$src" "../pdfs/$name"
done
