#!/usr/bin/env bash
# heldout6 (benchmarks/data/meta_heldout6.jsonl): 40 R package vignettes from 31 Debian
# packages, for the metadata check (title, authors, year) on papers nobody here tuned on.
# None of its packages is in an earlier set. Packages were taken from
# `apt-cache pkgnames r-cran-` (sorted, the 101 packages already used left out) in the order
# random.Random(6).shuffle gives, skipping packages without a PDF under doc/ and PDFs that are
# not paper-like (one-page sheets and diagrams, a hex logo, a reference card, xtable's galleries
# of code and output, proxy's generated list of measures, aplpack's noweb code listings), at
# most 2 PDFs a package, taken in C-locale order of file name. HSAUR3's book chapters were kept
# (page 1 is the book's title page). Its truth was written by a helper reading each paper's
# pages 1-2 and a picture of page 1, before anything was measured on it. Fetched with apt into
# DIR/pdfs as <package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout6.sh DIR
#   citeloom ingest DIR/pdfs -p heldout6 && citeloom papers -p heldout6 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout6.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout6.sh DIR}
packages=(r-cran-afex=1.2-1-1 r-cran-amap=0.8-19-1 r-cran-bms=0.3.5-1 r-cran-car=3.1-1-1 r-cran-dimred=0.2.6-1 r-cran-diptest=0.76-0-1+b1 r-cran-effects=4.2.2-1 r-cran-filehash=2.4-5-1 r-cran-genetics=1.3.8.1.3-1 r-cran-haplo.stats=1.9.3-1 r-cran-hsaur3=1.0-13-1 r-cran-hwriter=1.3.2.1-1 r-cran-kohonen=3.0.11+dfsg-1 r-cran-lasso2=1.2-22-1+b1 r-cran-learnbayes=2.15.1-4 r-cran-maptools=1:1.1-6+dfsg-1 r-cran-metafor=3.8-1-1 r-cran-powerlaw=0.70.6-2 r-cran-pscbs=0.66.0-2 r-cran-psychotree=0.16-0-1 r-cran-r.devices=2.17.1+ds-1 r-cran-r.oo=1.25.0-1 r-cran-r2html=2.3.3+dfsg-1 r-cran-rcppmlpack=1.0.10-7-2 r-cran-rockchalk=1.8.157+dfsg-1 r-cran-rodbc=1.3-20-1 r-cran-seroincidence=2.0.0-3 r-cran-spacetime=1.2-8+dfsg-1 r-cran-squarem=2021.1-1 r-cran-tinytest=1.4.1-1 r-cran-tsp=1.2-2-1 )
files=(afex__introduction-mixed-models.pdf amap__amap.pdf bms__bmsmanual.pdf car__embedding.pdf dimred__dimensionality-reduction.pdf diptest__diptest-issues.pdf effects__functions-supported-by-effects.pdf effects__partial-residuals.pdf filehash__filehash.pdf genetics__genetics_article.pdf haplo.stats__haplostats.pdf hsaur3__Ch_analysing_longitudinal_dataI.pdf hsaur3__Ch_analysing_longitudinal_dataII.pdf hwriter__hwriter.pdf kohonen__kohonen-manual_2018.pdf lasso2__Manual-vignette.pdf learnbayes__BayesFactors.pdf learnbayes__BinomialInference.pdf maptools__combine_maptools.pdf metafor__metafor.pdf powerlaw__a_introduction.pdf powerlaw__b_powerlaw_examples.pdf pscbs__CBS.pdf pscbs__PairedPSCBS.pdf psychotree__raschtree.pdf r.devices__R.devices-overview.pdf r.oo__Bengtsson.pdf r2html__R2HTML.pdf rcppmlpack__RcppMLPACK-intro.pdf rockchalk__Rchaeology.pdf rockchalk__Rstyle.pdf rodbc__RODBC.pdf seroincidence__installation.pdf seroincidence__methodology.pdf spacetime__jss816.pdf spacetime__sto.pdf squarem__SQUAREM.pdf tinytest__tinytest_examples.pdf tinytest__using_tinytest.pdf tsp__TSP.pdf )
bash "$(dirname "$0")/fetch_vignettes.sh" "$dir" "${packages[@]}" -- "${files[@]}"
