#!/usr/bin/env bash
# heldout4 (benchmarks/data/meta_heldout4.jsonl): 40 R package vignettes from 35 Debian
# packages, for the metadata check (title, authors, year) on papers nobody here tuned on.
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout4.sh DIR
#   citeloom ingest DIR/pdfs -p heldout4 && citeloom papers -p heldout4 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout4.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout4.sh DIR}
packages=(r-cran-aer=1.2-10-1 r-cran-bbmle=1.0.25-2 r-cran-brobdingnag=1.2-9-1 r-cran-clue=0.3-64-1 r-cran-doparallel=1.0.17-1 r-cran-earth=5.3.2-1 r-cran-elliptic=1.4-0-2 r-cran-etm=1.1.1-1 r-cran-expm=0.999-7-1 r-cran-formula=1.2-4-1 r-cran-gbm=2.1.8.1-1 r-cran-gnm=1.1-2-1 r-cran-gsl=2.1-8-1 r-cran-hexbin=1.28.2-1 r-cran-hypergeo=1.2-13-4 r-cran-ipred=0.9-13-1 r-cran-iterators=1.0.14-1 r-cran-ks=1.14.0-1 r-cran-maxlik=1.5-2-1 r-cran-maxstat=0.7-25-2+b1 r-cran-mitools=2.4-2 r-cran-mixtools=2.0.0-1 r-cran-msm=1.7-1 r-cran-plotmo=3.6.2-1 r-cran-proto=1.0.0-3 r-cran-rcpparmadillo=0.12.0.1.0-1 r-cran-rcppeigen=0.3.3.9.3-1 r-cran-rmpfr=0.9-1-1 r-cran-rpart=4.1.19-1 r-cran-runit=0.4.32-3 r-cran-sets=1.0.22+ds-1 r-cran-sparsem=1.81-1 r-cran-survey=4.1-1-1 r-cran-systemfit=1.1-28-1 r-cran-vegan=2.6-4+dfsg-1 )
files=(aer__AER.pdf bbmle__mle2.pdf bbmle__quasi.pdf brobdingnag__Brobdingnag.pdf clue__clue.pdf doparallel__gettingstartedParallel.pdf earth__earth-varmod.pdf elliptic__ellipticpaper.pdf elliptic__residuetheorem.pdf etm__etmCIF_tutorial.pdf expm__expm.pdf formula__Formula.pdf gbm__gbm.pdf gnm__gnmOverview.pdf gsl__gsl.pdf hexbin__hexagon_binning.pdf hypergeo__hypergeometric.pdf ipred__ipred-examples.pdf iterators__iterators.pdf iterators__writing.pdf ks__kde.pdf maxlik__using-maxlik.pdf maxstat__maxstat.pdf mitools__smi.pdf mixtools__mixtools.pdf msm__msm-manual.pdf plotmo__modguide.pdf proto__proto.pdf rcpparmadillo__RcppArmadillo-intro.pdf rcpparmadillo__RcppArmadillo-sparseMatrix.pdf rcppeigen__RcppEigen-Introduction.pdf rmpfr__Rmpfr-pkg.pdf rmpfr__log1mexp-note.pdf rpart__longintro.pdf runit__RUnit.pdf sets__sets.pdf sparsem__SparseM.pdf survey__epi.pdf systemfit__systemfit.pdf vegan__intro-vegan.pdf )
bash "$(dirname "$0")/fetch_vignettes.sh" "$dir" "${packages[@]}" -- "${files[@]}"
