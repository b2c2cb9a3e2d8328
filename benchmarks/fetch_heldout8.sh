#!/usr/bin/env bash
# heldout8 (benchmarks/data/meta_heldout8.jsonl): 40 R package vignettes from 32 Debian
# packages, for the metadata check (title, authors, year) on papers nobody here tuned on.
# None of its packages is in an earlier set. Packages were taken from
# `apt-cache pkgnames r-cran-` (sorted, the 172 packages already used left out) in the order
# random.Random(8).shuffle gives, skipping packages without a PDF under doc/ and PDFs that are
# not paper-like (survMisc's plots.pdf, ggbeeswarm's and vipor's usageExamples.pdf: galleries
# of example code and plots; timeSeries' reference card), at most 2 PDFs a package, taken in
# C-locale order of file name. gregmisc's one-page R News-style article was kept (it has a
# title and byline).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout8.sh DIR
#   citeloom ingest DIR/pdfs -p heldout8 && citeloom papers -p heldout8 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout8.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout8.sh DIR}
packages=(r-cran-actuar=3.3-2-1 r-cran-alakazam=1.2.1-1 r-cran-bridgesampling=1.1-2-1 r-cran-calibrate=1.7.7-1 r-cran-colorspace=2.1-0+dfsg-1 r-cran-cvar=0.5-2 r-cran-distr=2.9.1+dfsg-1 r-cran-expint=0.1-8-1 r-cran-fitdistrplus=1.1-8-1 r-cran-genoplotr=0.8.11+dfsg-2 r-cran-geosphere=1.5-18-1 r-cran-gmm=1.7-1 r-cran-gregmisc=2.1.5-4 r-cran-huge=1.3.5-1+b1 r-cran-interp=1.1-3-1 r-cran-logcondens=2.1.7-1 r-cran-magic=1.6-1-1 r-cran-mlmrev=1.0-8-2 r-cran-mutoss=0.1-12-3 r-cran-nanotime=0.3.7-1 r-cran-optimx=2022-4.30+dfsg-1 r-cran-rcppannoy=0.0.20-1 r-cran-rcppdist=0.1.1-2 r-cran-rgenoud=5.9-0.3-1 r-cran-samr=3.0-2 r-cran-shazam=1.1.2-1 r-cran-snowfall=1.84-6.2-1 r-cran-sp=1:1.6-0+dfsg-1 r-cran-surveillance=1.20.3-1 r-cran-timeseries=4021.105-2 r-cran-tmvtnorm=1.5-1 r-cran-vipor=0.4.5-3 )
files=(actuar__actuar.pdf actuar__coverage.pdf alakazam__AminoAcids-Vignette.pdf alakazam__Diversity-Vignette.pdf bridgesampling__bridgesampling_paper.pdf bridgesampling__bridgesampling_paper_extended.pdf calibrate__CalibrationGuide.pdf colorspace__hcl-colors.pdf cvar__Guide_cvar.pdf distr__newDistributions-knitr.pdf expint__expint.pdf fitdistrplus__paper2JSS.pdf genoplotr__genoPlotR.pdf geosphere__geosphere.pdf gmm__gmm_with_R.pdf gregmisc__gregmisc.pdf huge__vignette.pdf interp__partDeriv.pdf logcondens__logcondens.pdf magic__magic.pdf mlmrev__MlmSoftRev.pdf mlmrev__StarData.pdf mutoss__quickstart.pdf mutoss__simToolManual.pdf nanotime__nanotime-introduction.pdf optimx__Extend-optimx.pdf rcppannoy__UsingAnnoyInCcppWrapper.pdf rcppdist__RcppDist.pdf rgenoud__rgenoud.pdf samr__sam.pdf shazam__Baseline-Vignette.pdf shazam__DistToNearest-Vignette.pdf snowfall__snowfall.pdf sp__csdacm.pdf sp__intro_sp.pdf surveillance__glrnb.pdf surveillance__hhh4.pdf timeseries__timeSeriesPlot.pdf tmvtnorm__GibbsSampler.pdf vipor__methodComparison.pdf )
bash "$(dirname "$0")/fetch_vignettes.sh" "$dir" "${packages[@]}" -- "${files[@]}"
