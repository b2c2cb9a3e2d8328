#!/usr/bin/env bash
# heldout12 (benchmarks/data/meta_heldout12.jsonl): 40 research-article-like PDFs (papers,
# preprints, journal reprints, technical reports/notes, bylined vignettes) from 26 Debian
# packages (31 counting TeX Live's CTAN packages apart), for the metadata check (title,
# authors, year) on papers nobody here tuned on.
# Exclusions, built by a script before choosing: every package and file named in
# benchmarks/fetch_*.sh (entries and every word of their headers), benchmarks/*.txt and the file
# names in benchmarks/data/*.jsonl; the prefixes and files of every earlier set's pdfs folder
# (heldout4-heldout11, dev3, dev4, shared/corpus, shared/corpus2 and its MANIFEST); and all of
# the texlive-sample tree (the whole of texlive-publishers-doc and texlive-science-doc). For
# TeX Live the CTAN package folder counts as the package. Only generic file names (intro.pdf,
# manual.pdf) coincide with earlier files, and those are from other packages.
# 9 are CRAN vignettes: of `apt-cache pkgnames r-cran-` (1109) the 893 unused names were
# checked against the earlier helpers' scans (heldout5-heldout8), which list 14 of them as
# shipping a PDF; all 14 were fetched (thematic and VennDiagram have only test Rplots.pdf).
# Every PDF under lib/R/*/doc with a title and a personal byline was kept, at most 2 a package,
# so the random.Random(12) order did not matter: BoolNet, doMC, gower, irace, irlba, Rdpack (2),
# Rsolnp, tigger. Skipped: FactoMineR (one page, no byline), numDeriv's Guide and setRNG (no
# byline), GenABEL's tutorial (only a copyright line), RdpackTester (a DESCRIPTION page),
# BoolNet's example figures.
# 11 are Bioconductor vignettes: `apt-cache pkgnames r-bioc-` (170; 122 unused), sorted and
# shuffled with random.Random(12), all 122 downloaded (17 ship a PDF under lib/R/*/doc); in
# that order, at most 2 PDFs a package in C-locale order of file name, skipping PDFs without a
# personal byline (genefilter's howtogenefilter and howtogenefinder), until 11 (the last sva,
# 64th in the order; altcdfenvs' ngenomeschips and six snpStats vignettes passed over by the
# 2 rule).
# 10 come from TeX Live: the nine texlive-*-doc packages other than publishers and science
# were unpacked (4832 PDFs); page 1 was screened for journal/proceedings/preprint markers and
# an abstract, and read, giving a pool of 27 articles (journal, newsletter and proceedings
# papers and drafts, TUGboat-class drafts, preprints, Hobby's MetaPost papers, a published
# paper's cover page, an AASTeX sample with real names): featpost's BezierApprox and
# tb88henderson; mp3d's tb57roeg, paper1997corrected, gut2001, tugboat-geometry-space; cals'
# tb101parashchenko; octavo's tub-octavo; babelbib's tugboat-babelbib; dcpic's eurotex2001;
# examplep's eurotex_2005_examplep; metaplot_preprint; metapost/base mpgraph, mpboxes, mpintro;
# hyperref's paper; textmerg; parades; lazylist; almfixed-dtk; coverpage's ECCV06Sample;
# emulateapj's sample; the -doc PDFs of widows-and-orphans, fewerfloatpages, dashundergaps and
# unicodefonttable; dialogl's codialog. Package manuals that merely call themselves articles
# were left out. The pool, sorted by path, was shuffled with random.Random(12) and the first 10
# taken (at most 2 a CTAN package; none passed over). Named texlive-<CTAN package>__<file>.pdf
# (metapost/base counts as the package metapost).
# 10 come from other Debian packages: 103 packages likely to ship papers or bylined reports
# were unpacked (abinit-doc abyss acl2-doc apophenia-doc auctex auto-07p beast-mcmc bzip2-doc
# camlidl-doc casacore-doc clasp clustalo dieharder dynare-doc elk-lapw festival-doc form
# freefem++-doc freefem-doc gambc-doc, 29 gap-* packages not used before, getdp giac-doc gmp-ecm
# gnuastro gringo hyphy-common irstlm jags libcdd-doc libcpl-doc libecm-dev libflint-doc
# libhwloc-doc libppl-doc libsuitesparse-doc libsuperlu-doc liggghts-doc lp-solve-doc lrslib
# maude mcl missfits mit-scheme-doc music-doc ngspice-doc paml phyml povray-doc prime-phylo
# probabel probcons proofgeneral-doc psfex quantum-espresso-data racket-doc raxml ray scamp
# scotch sendmail-doc singular-doc siscone-doc-pdf source-extractor spin stiff surf-alggeo-doc
# swarp swi-prolog-doc tachyon-doc tigr-glimmer topcom wannier90 wcslib-doc xppaut). The pool
# was their papers, technical reports and notes with a personal byline, plus report-style
# guides with an abstract on page 1: dynare-doc (bvar-a-la-sims, dr, dynare++-ramsey,
# sylvester, tl, gsa, guide, parallel), abinit-doc (4 reports), liggghts-doc (kspace,
# pair_gayberne_extra, pair_resquared_extra), libsuitesparse-doc (AMD, CAMD, CHOLMOD, KLU, LDL,
# SPQR, UMFPACK quick start and user guide), tachyon-doc, libcdd-doc: 25 PDFs, sorted, shuffled
# with random.Random(12), first 10 taken, at most 2 a package (9 passed over by that rule).
# Left out of the pool: software manuals (the GAP package manuals, JAGS, Elk, FreeFEM, ngspice,
# auto-07p, PPL, RAxML, ...), slides, Doxygen references, team-only bylines, and liggghts-doc's
# PDLammps_VES (the same note as lammps-doc's, named in heldout11).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf
# (r-bioc-/r-cran- prefix dropped, .pdf.gz unpacked).
#
#   bash benchmarks/fetch_heldout12.sh DIR
#   citeloom ingest DIR/pdfs -p heldout12 && citeloom papers -p heldout12 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout12.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout12.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "r-cran-boolnet=2.1.7-1 boolnet__BoolNet_package_vignette.pdf usr/lib/R/site-library/BoolNet/doc/BoolNet_package_vignette.pdf"
  "r-cran-domc=1.3.8-1 domc__gettingstartedMC.pdf usr/lib/R/site-library/doMC/doc/gettingstartedMC.pdf"
  "r-cran-gower=1.0.1-1 gower__intro.pdf usr/lib/R/site-library/gower/doc/intro.pdf"
  "r-cran-irace=3.5-1 irace__irace-package.pdf usr/lib/R/site-library/irace/doc/irace-package.pdf"
  "r-cran-irlba=2.3.5.1-1 irlba__irlba.pdf usr/lib/R/site-library/irlba/doc/irlba.pdf"
  "r-cran-rdpack=2.4-1 rdpack__Inserting_bibtex_references.pdf usr/lib/R/site-library/Rdpack/doc/Inserting_bibtex_references.pdf"
  "r-cran-rdpack=2.4-1 rdpack__Inserting_figures_and_evaluated_examples.pdf usr/lib/R/site-library/Rdpack/doc/Inserting_figures_and_evaluated_examples.pdf"
  "r-cran-rsolnp=1.16+dfsg-4 rsolnp__manual.pdf usr/lib/R/site-library/Rsolnp/doc/manual.pdf"
  "r-cran-tigger=1.0.1-1 tigger__Tigger-Vignette.pdf usr/lib/R/site-library/tigger/doc/Tigger-Vignette.pdf"
  "r-bioc-variantannotation=1.44.1-1 variantannotation__VariantAnnotation.pdf usr/lib/R/site-library/VariantAnnotation/doc/VariantAnnotation.pdf"
  "r-bioc-variantannotation=1.44.1-1 variantannotation__filterVcf.pdf usr/lib/R/site-library/VariantAnnotation/doc/filterVcf.pdf"
  "r-bioc-rgsepd=1.30.0-1 rgsepd__rgsepd.pdf usr/lib/R/site-library/rgsepd/doc/rgsepd.pdf"
  "r-bioc-altcdfenvs=1:2.60.0-1 altcdfenvs__altcdfenvs.pdf usr/lib/R/site-library/altcdfenvs/doc/altcdfenvs.pdf"
  "r-bioc-altcdfenvs=1:2.60.0-1 altcdfenvs__modify.pdf usr/lib/R/site-library/altcdfenvs/doc/modify.pdf"
  "r-bioc-dirichletmultinomial=1.40.0-1 dirichletmultinomial__DirichletMultinomial.pdf usr/lib/R/site-library/DirichletMultinomial/doc/DirichletMultinomial.pdf"
  "r-bioc-snpstats=1.48.0+dfsg-1 snpstats__Fst-vignette.pdf usr/lib/R/site-library/snpStats/doc/Fst-vignette.pdf"
  "r-bioc-snpstats=1.48.0+dfsg-1 snpstats__data-input-vignette.pdf usr/lib/R/site-library/snpStats/doc/data-input-vignette.pdf"
  "r-bioc-organismdbi=1.40.0-1 organismdbi__OrganismDbi.pdf usr/lib/R/site-library/OrganismDbi/doc/OrganismDbi.pdf"
  "r-bioc-genefilter=1.80.3-1 genefilter__independent_filtering_plots.pdf usr/lib/R/site-library/genefilter/doc/independent_filtering_plots.pdf"
  "r-bioc-sva=3.46.0-1 sva__sva.pdf usr/lib/R/site-library/sva/doc/sva.pdf"
  "texlive-pictures-doc=2022.20230122-3 texlive-dcpic__eurotex2001.pdf usr/share/doc/texlive-doc/generic/dcpic/eurotex2001.pdf"
  "texlive-metapost-doc=2022.20230122-3 texlive-metaplot__metaplot_preprint.pdf usr/share/doc/texlive-doc/latex/metaplot/metaplot_preprint.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-dashundergaps__dashundergaps-doc.pdf usr/share/doc/texlive-doc/latex/dashundergaps/dashundergaps-doc.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-octavo__tub-octavo.pdf usr/share/doc/texlive-doc/latex/octavo/tub-octavo.pdf"
  "texlive-fonts-extra-doc=2022.20230122-4 texlive-almfixed__almfixed-dtk.pdf usr/share/doc/texlive-doc/fonts/almfixed/almfixed-dtk.pdf"
  "texlive-metapost-doc=2022.20230122-3 texlive-metapost__mpintro.pdf usr/share/doc/texlive-doc/metapost/base/mpintro.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-coverpage__ECCV06Sample.pdf usr/share/doc/texlive-doc/latex/coverpage/ECCV06Sample.pdf"
  "texlive-metapost-doc=2022.20230122-3 texlive-metapost__mpboxes.pdf usr/share/doc/texlive-doc/metapost/base/mpboxes.pdf"
  "texlive-metapost-doc=2022.20230122-3 texlive-mp3d__gut2001.pdf usr/share/doc/texlive-doc/metapost/mp3d/gut2001.pdf"
  "texlive-latex-extra-doc=2022.20230122-4 texlive-textmerg__textmerg.pdf usr/share/doc/texlive-doc/generic/textmerg/textmerg.pdf"
  "abinit-doc=9.6.2-1 abinit-doc__test_report_kden.pdf usr/share/doc/abinit/html/theory/KDEN/test_report_kden.pdf"
  "liggghts-doc=3.8.0+repack1-9 liggghts-doc__pair_gayberne_extra.pdf usr/share/doc/liggghts/doc/PDF/pair_gayberne_extra.pdf.gz"
  "dynare-doc=5.3-1 dynare-doc__dynare++-ramsey.pdf usr/share/doc/dynare/dynare++/dynare++-ramsey.pdf.gz"
  "libsuitesparse-doc=1:5.12.0+dfsg-2 libsuitesparse-doc__AMD_UserGuide.pdf usr/share/doc/libsuitesparse-dev/AMD_UserGuide.pdf"
  "abinit-doc=9.6.2-1 abinit-doc__wf_elecden_kinden_elf.pdf usr/share/doc/abinit/html/theory/ELF/wf_elecden_kinden_elf.pdf"
  "libsuitesparse-doc=1:5.12.0+dfsg-2 libsuitesparse-doc__CAMD_UserGuide.pdf usr/share/doc/libsuitesparse-dev/CAMD_UserGuide.pdf"
  "dynare-doc=5.3-1 dynare-doc__dr.pdf usr/share/doc/dynare/dr.pdf.gz"
  "liggghts-doc=3.8.0+repack1-9 liggghts-doc__pair_resquared_extra.pdf usr/share/doc/liggghts/doc/PDF/pair_resquared_extra.pdf.gz"
  "tachyon-doc=0.99~b6+dsx-10 tachyon-doc__tachyon.pdf usr/share/doc/tachyon/tachyon.pdf"
  "libcdd-doc=094m-1 libcdd-doc__cddlibman.pdf usr/share/doc/libcdd-dev/cddlibman.pdf.gz"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"
