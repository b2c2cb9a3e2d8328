#!/usr/bin/env bash
# Fetch named files out of Debian packages, for the question and metadata sets whose papers
# are not in the repository (fetch_dev3.sh, fetch_dev4.sh, fetch_heldout10.sh call it):
#
#   bash benchmarks/fetch_files.sh DIR "package=version name-in-set path-in-package" ...
#
# Each package is downloaded once with apt into DIR/debs and unpacked into DIR/x; each file
# is copied (a .gz one unpacked) to DIR/pdfs/<name-in-set>.
set -euo pipefail
dir=${1:?usage: fetch_files.sh DIR "package=version name path" ...}
shift
mkdir -p "$dir/debs" "$dir/x" "$dir/pdfs"
cd "$dir/debs"
for entry in "$@"; do
  read -r spec name path <<<"$entry"
  pkg=${spec%%=*}
  ls "${pkg}"_*.deb >/dev/null 2>&1 || apt-get download "$spec"
  deb=$(ls "${pkg}"_*.deb | head -1)
  [ -d "../x/$pkg" ] || dpkg -x "$deb" "../x/$pkg"
  case $path in
    *.gz) gzip -dc "../x/$pkg/$path" > "../pdfs/$name" ;;
    *) cp "../x/$pkg/$path" "../pdfs/$name" ;;
  esac
done
echo "$(ls ../pdfs | wc -l) PDFs in $dir/pdfs"
