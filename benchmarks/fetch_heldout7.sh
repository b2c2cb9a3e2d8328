#!/usr/bin/env bash
# heldout7 (benchmarks/data/meta_heldout7.jsonl): 40 R package vignettes from 30 Debian
# packages, for the metadata check (title, authors, year) on papers nobody here tuned on.
# None of its packages is in an earlier set. Packages were taken from
# `apt-cache pkgnames r-cran-` (sorted, the 140 packages already used left out) in the order
# random.Random(7).shuffle gives, skipping packages without a PDF under doc/ and PDFs that are
# not paper-like (R.rsp's reference card, its one-page LaTeX-vignette note and a .pdf that is
# really a text file; sn's workshop slides; gdata's blank one-page gregmisc.pdf; Rcmdr's
# Russian rendering of a help page), at most 2 PDFs a package, taken in C-locale order of file
# name. spatstat's bug list and dataset overview were kept (each has a title/author header).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout7.sh DIR
#   citeloom ingest DIR/pdfs -p heldout7 && citeloom papers -p heldout7 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout7.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout7.sh DIR}
packages=(r-cran-adephylo=1.1-13-1 r-cran-apcluster=1.4.10-1 r-cran-brms=2.18.0-1 r-cran-ei=1.3-3-3 r-cran-epi=2.47-1 r-cran-erm=1.0-2-1+b1 r-cran-forecast=8.20-1 r-cran-gdata=2.18.0.1-1 r-cran-gridbase=0.4-7-5 r-cran-gsubfn=0.7-2 r-cran-gwidgets=0.0-54.2-2 r-cran-iso=0.0-18.1-1 r-cran-kedd=1.0.3-2 r-cran-kutils=1.70+dfsg-2 r-cran-lbfgsb3c=2020-3.2-2 r-cran-maldiquant=1.22-1 r-cran-maldiquantforeign=0.13-1 r-cran-mnp=3.1-3-1 r-cran-optimparallel=1.0-2-2 r-cran-r.rsp=0.45.0+ds-1 r-cran-rcmdr=2.8-0-1 r-cran-registry=0.5-1-2 r-cran-rgdal=1.6-4+dfsg-1 r-cran-rprotobuf=0.4.20-1+b1 r-cran-rrcov=1.7-2-1 r-cran-scatterplot3d=0.3-42-1 r-cran-semtools=0.5.6-1 r-cran-sn=2.1.0-1 r-cran-spatstat=3.0-3-1 r-cran-tikzdevice=0.12.4-1 )
files=(adephylo__adephylo.pdf apcluster__apcluster.pdf brms__brms_multilevel.pdf brms__brms_overview.pdf ei__ei.pdf epi__addLexis.pdf epi__crisk.pdf erm__eRm.pdf forecast__JSS2008.pdf gdata__mapLevels.pdf gdata__unknown.pdf gridbase__gridBase.pdf gsubfn__gsubfn.pdf gwidgets__addingToolkit.pdf gwidgets__gWidgets.pdf iso__algorithm.pdf kedd__intro.pdf kedd__kedd.pdf kutils__variablekey.pdf lbfgsb3c__lbfgsb3c.pdf maldiquant__MALDIquant-intro.pdf maldiquantforeign__MALDIquantForeign-intro.pdf mnp__MNP.pdf optimparallel__optimParallel.pdf r.rsp__Dynamic_document_creation_using_RSP.pdf r.rsp__R_packages-Vignettes_prior_to_R300.pdf rcmdr__Empezando-con-Rcmdr-es.pdf rcmdr__Getting-Started-with-the-Rcmdr-ja.pdf registry__registry.pdf rgdal__OGR_shape_encoding.pdf rprotobuf__RProtoBuf-intro.pdf rprotobuf__RProtoBuf-paper.pdf rrcov__rrcov.pdf scatterplot3d__s3d.pdf semtools__partialInvariance.pdf sn__how_to_sample.pdf sn__selm-intervals.pdf spatstat__bugfixes.pdf spatstat__datasets.pdf tikzdevice__tikzDevice.pdf )
bash "$(dirname "$0")/fetch_vignettes.sh" "$dir" "${packages[@]}" -- "${files[@]}"
