#!/usr/bin/env bash
# heldout5 (benchmarks/data/meta_heldout5.jsonl): 40 R package vignettes from 32 Debian
# packages, for the metadata check (title, authors, year) on papers nobody here tuned on.
# None of its packages is in heldout4 or dev3. Packages were taken from `apt-cache pkgnames
# r-cran-` (sorted, those sets' packages left out) in the order random.Random(5).shuffle gives,
# skipping packages without a PDF vignette and PDFs that are not paper-like (one-page sheets,
# figure-only pages, Doxygen manuals, pages of bare code examples), at most 2 PDFs a package.
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout5.sh DIR
#   citeloom ingest DIR/pdfs -p heldout5 && citeloom papers -p heldout5 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout5.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout5.sh DIR}
packages=(r-cran-biasedurn=2.0.9-1 r-cran-bradleyterry2=1.1-2-2 r-cran-cgdsr=1.3.0-2 r-cran-ctmcd=1.4.2-1 r-cran-dbscan=1.1-11+ds-1 r-cran-desolve=1.34-1 r-cran-dorng=1.8.6-1 r-cran-fastcluster=1.2.3-2 r-cran-gbutils=0.5-3 r-cran-geepack=1.3.9-1 r-cran-geometry=0.4.7-1 r-cran-glmmtmb=1.1.5+dfsg-4 r-cran-gplots=3.1.3-1 r-cran-gridsvg=1.7-4-1 r-cran-gstat=2.1-0-1 r-cran-jsonlite=1.8.4+dfsg-1 r-cran-laeken=0.5.2-1 r-cran-lavasearch2=1.5.6+dfsg-1 r-cran-libcoin=1.0-9-1+b1 r-cran-metamix=0.3-2+b1 r-cran-mi=1.1-1 r-cran-nmf=0.25-1 r-cran-pan=1.6-2 r-cran-phylobase=0.8.10-1+b1 r-cran-plot3d=1.4-2 r-cran-psych=2.2.9-1 r-cran-psychotools=0.7-2-1 r-cran-sampling=2.9-2 r-cran-shape=1.4.6-1 r-cran-stringdist=0.9.10-1 r-cran-susier=0.12.35+dfsg-1 r-cran-tgp=2.4-21-1 )
files=(biasedurn__UrnTheory.pdf bradleyterry2__BradleyTerry.pdf cgdsr__cgdsr.pdf ctmcd__RJ-2017-038.pdf dbscan__dbscan.pdf desolve__compiledCode.pdf desolve__deSolve.pdf dorng__doRNG.pdf fastcluster__fastcluster.pdf gbutils__Plot_pdf.pdf geepack__geepack-manual.pdf geometry__qhull-eg.pdf glmmtmb__glmmTMB.pdf glmmtmb__model_evaluation.pdf gplots__venn.pdf gridsvg__animation.pdf gstat__gstat.pdf gstat__prs.pdf jsonlite__json-mapping.pdf laeken__laeken-intro.pdf laeken__laeken-pareto.pdf lavasearch2__overview.pdf libcoin__libcoin.pdf metamix__guide.pdf mi__mi_vignette.pdf nmf__NMF-vignette.pdf nmf__heatmaps.pdf pan__pan-tr.pdf phylobase__phylobase.pdf plot3d__plot3D.pdf plot3d__volcano.pdf psych__intro.pdf psych__scoring.pdf psychotools__toolbox-simulation.pdf sampling__HT_Hajek_estimators.pdf shape__shape.pdf stringdist__RJournal_6_111-122-2014.pdf susier__trendfiltering_derivations.pdf tgp__tgp.pdf tgp__tgp2.pdf )
bash "$(dirname "$0")/fetch_vignettes.sh" "$dir" "${packages[@]}" -- "${files[@]}"
