#!/usr/bin/env bash
# The fourth PDF question set's papers (benchmarks/data/pdfqa_dev4.jsonl, docs/PDFQA_DEV4.md):
# 18 R package vignettes from 18 Debian packages, fetched with apt and unpacked into DIR/pdfs
# under the names the set uses. Nothing of them is in the repository.
#
#   bash benchmarks/fetch_dev4.sh DIR
#   citeloom eval pdfqa --questions benchmarks/data/pdfqa_dev4.jsonl --corpus-dir DIR -p pdfqa-eval-dev4
set -euo pipefail
dir=${1:?usage: fetch_dev4.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "r-cran-ape=5.7-1 ape__DrawingPhylogenies.pdf usr/lib/R/site-library/ape/doc/DrawingPhylogenies.pdf"
  "r-cran-bit=4.0.5-1 bit__bit-usage.pdf usr/lib/R/site-library/bit/doc/bit-usage.pdf"
  "r-cran-coin=1.4-2-1+b1 coin__Implementation.pdf usr/lib/R/site-library/coin/doc/Implementation.pdf"
  "r-cran-e1071=1.7-13-1 e1071__svmdoc.pdf usr/lib/R/site-library/e1071/doc/svmdoc.pdf"
  "r-cran-intervals=0.15.2-1+b1 intervals__intervals_overview.pdf usr/lib/R/site-library/intervals/doc/intervals_overview.pdf"
  "r-cran-kernlab=0.9-32-1 kernlab__kernlab.pdf usr/lib/R/site-library/kernlab/doc/kernlab.pdf"
  "r-cran-markovchain=0.9.1-1 markovchain__gsoc_2017_additions.pdf usr/lib/R/site-library/markovchain/doc/gsoc_2017_additions.pdf"
  "r-cran-mcmc=0.9-7-1+b1 mcmc__bfst.pdf usr/lib/R/site-library/mcmc/doc/bfst.pdf"
  "r-cran-metap=1.8-1 metap__compare.pdf usr/lib/R/site-library/metap/doc/compare.pdf"
  "r-cran-multcomp=1.4-22-1 multcomp__generalsiminf.pdf usr/lib/R/site-library/multcomp/doc/generalsiminf.pdf"
  "r-cran-partitions=1.10-7+ds-1 partitions__setpartitions.pdf usr/lib/R/site-library/partitions/doc/setpartitions.pdf"
  "r-cran-pls=2.8-1-1 pls__pls-manual.pdf usr/lib/R/site-library/pls/doc/pls-manual.pdf"
  "r-cran-qtl=1.58-1 qtl__rqtltour.pdf usr/lib/R/site-library/qtl/doc/rqtltour.pdf"
  "r-cran-rcppgsl=0.3.13-1 rcppgsl__RcppGSL-intro.pdf usr/lib/R/site-library/RcppGSL/doc/RcppGSL-intro.pdf"
  "r-cran-robumeta=2.0-3 robumeta__robumetaVignette.pdf usr/lib/R/site-library/robumeta/doc/robumetaVignette.pdf"
  "r-cran-robustbase=0.95-0-1 robustbase__lmrob_simulation.pdf usr/lib/R/site-library/robustbase/doc/lmrob_simulation.pdf"
  "r-cran-survival=3.5-3-1 survival__timedep.pdf usr/lib/R/library/survival/doc/timedep.pdf"
  "r-cran-ucminf=1.1-4.1-1 ucminf__TR0019.pdf usr/lib/R/site-library/ucminf/doc/TR0019.pdf"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"
