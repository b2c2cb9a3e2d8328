#!/usr/bin/env bash
# heldout11 (benchmarks/data/meta_heldout11.jsonl): 40 paper-like PDFs from 33 Debian packages,
# for the metadata check (title, authors, year) on papers nobody here tuned on. None of its
# packages is named in an earlier fetch script or list, or is the prefix of a file in an earlier
# set's pdfs folder (corpus2, dev3, dev4, heldout4-heldout10).
# 25 are Bioconductor vignettes: packages were taken from `apt-cache pkgnames r-bioc-` (sorted,
# the 23 used in heldout10 left out: 147 names) in the order random.Random(11).shuffle gives,
# passing over NetSAM and DelayedArray (named in heldout10 as skipped), skipping packages
# without a PDF under lib/R/*/doc and PDFs that are not paper-like or have no personal byline
# (S4Vectors' RleTricks: a page of bare code; its S4QuickOverview: talk slides;
# MultiAssayExperiment's cheat sheet; groHMM's tutorial: no byline), at most 2 PDFs a package,
# taken in C-locale order of file name, until 25 (21 packages, the last Mergeomics, 95th in
# that order).
# 4 are CRAN vignettes: the same was done with `apt-cache pkgnames r-cran-` (sorted, the 201
# already used as file prefixes or fetch entries left out: 908 names) shuffled with
# random.Random(11), passing over aplpack, xtable, ggbeeswarm, survMisc and proxy (named in
# earlier headers as skipped); only the first 287 of the other 903 were scanned (most remaining
# r-cran packages ship no PDF), giving psychTools, g.data and pcaPP
# (Luminescence's one-page class diagram and uroot's one-page pointer note were skipped;
# Amelia's amelia.pdf is a dangling link in the package).
# 11 come from other Debian documentation packages: 24 packages known to ship papers or bylined
# manuals were unpacked (octave-doc gnuplot-doc asymptote-doc r-doc-pdf fftw-docs mpich-doc nco
# gap-design gap-grape gap-polycyclic gap-alnuth pari-doc sbcl-doc xfig-doc dejagnu prover9-doc
# gmsh-doc yacas-doc elpa-ess units pspp maxima-doc lammps-doc picosat); their 27 PDFs with a
# title and a personal byline on page 1 (not reference cards, HTML dumps, a README, or manuals
# whose page 1 names no person or only a group: PARI's guides, the R Core Team manuals, yacas,
# Octave's liboctave, asymptote.pdf, gmsh, pspp, sbcl, LAMMPS' SMD guide) were sorted and
# shuffled with random.Random(11), and the first 11 taken, at most 2 a package (lammps-doc's
# CG-DNA and PDLammps_VES were passed over by that rule).
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf
# (r-bioc-/r-cran- prefix dropped, .pdf.gz unpacked).
#
#   bash benchmarks/fetch_heldout11.sh DIR
#   citeloom ingest DIR/pdfs -p heldout11 && citeloom papers -p heldout11 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout11.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout11.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "r-bioc-rbgl=1.74.0+dfsg-1 rbgl__RBGL.pdf usr/lib/R/site-library/RBGL/doc/RBGL.pdf"
  "r-bioc-biocstyle=2.26.0+dfsg-1 biocstyle__LatexStyle2.pdf usr/lib/R/site-library/BiocStyle/doc/LatexStyle2.pdf"
  "r-bioc-monocle=2.26.0-2 monocle__monocle-vignette.pdf usr/lib/R/site-library/monocle/doc/monocle-vignette.pdf"
  "r-bioc-limma=3.54.1+dfsg-1 limma__intro.pdf usr/lib/R/site-library/limma/doc/intro.pdf"
  "r-bioc-goseq=1.50.0-1 goseq__goseq.pdf usr/lib/R/site-library/goseq/doc/goseq.pdf"
  "r-bioc-biocparallel=1.32.5-1 biocparallel__BiocParallel_BatchtoolsParam.pdf usr/lib/R/site-library/BiocParallel/doc/BiocParallel_BatchtoolsParam.pdf"
  "r-bioc-biocparallel=1.32.5-1 biocparallel__Errors_Logs_And_Debugging.pdf usr/lib/R/site-library/BiocParallel/doc/Errors_Logs_And_Debugging.pdf"
  "r-bioc-nanostringqcpro=1.30.0-1 nanostringqcpro__vignetteNanoStringQCPro.pdf usr/lib/R/site-library/NanoStringQCPro/doc/vignetteNanoStringQCPro.pdf"
  "r-bioc-s4vectors=0.36.1-1 s4vectors__S4VectorsOverview.pdf usr/lib/R/site-library/S4Vectors/doc/S4VectorsOverview.pdf"
  "r-bioc-genomeinfodb=1.34.9-1 genomeinfodb__Accept-organism-for-GenomeInfoDb.pdf usr/lib/R/site-library/GenomeInfoDb/doc/Accept-organism-for-GenomeInfoDb.pdf"
  "r-bioc-genomeinfodb=1.34.9-1 genomeinfodb__GenomeInfoDb.pdf usr/lib/R/site-library/GenomeInfoDb/doc/GenomeInfoDb.pdf"
  "r-bioc-bladderbatch=1.36.0-1 bladderbatch__bladderbatch.pdf usr/lib/R/site-library/bladderbatch/doc/bladderbatch.pdf"
  "r-bioc-rsubread=2.12.2-1 rsubread__Rsubread.pdf usr/lib/R/site-library/Rsubread/doc/Rsubread.pdf"
  "r-bioc-rsubread=2.12.2-1 rsubread__SubreadUsersGuide.pdf usr/lib/R/site-library/Rsubread/doc/SubreadUsersGuide.pdf"
  "r-bioc-affy=1.76.0-1 affy__affy.pdf usr/lib/R/site-library/affy/doc/affy.pdf"
  "r-bioc-affy=1.76.0-1 affy__builtinMethods.pdf usr/lib/R/site-library/affy/doc/builtinMethods.pdf"
  "r-bioc-consensusclusterplus=1.62.0-1 consensusclusterplus__ConsensusClusterPlus.pdf usr/lib/R/site-library/ConsensusClusterPlus/doc/ConsensusClusterPlus.pdf"
  "r-bioc-edger=3.40.2+dfsg-1 edger__edgeR.pdf usr/lib/R/site-library/edgeR/doc/edgeR.pdf"
  "r-bioc-biovizbase=1.46.0-1 biovizbase__intro.pdf usr/lib/R/site-library/biovizBase/doc/intro.pdf"
  "r-bioc-biobase=2.58.0-2 biobase__ExpressionSetIntroduction.pdf usr/lib/R/site-library/Biobase/doc/ExpressionSetIntroduction.pdf"
  "r-bioc-rots=1.26.0-1 rots__ROTS.pdf usr/lib/R/site-library/ROTS/doc/ROTS.pdf"
  "r-bioc-stringdb=2.10.1-1 stringdb__STRINGdb.pdf usr/lib/R/site-library/STRINGdb/doc/STRINGdb.pdf"
  "r-bioc-genomicfiles=1.34.0-1 genomicfiles__GenomicFiles.pdf usr/lib/R/site-library/GenomicFiles/doc/GenomicFiles.pdf"
  "r-bioc-shortread=1.56.1-1 shortread__Overview.pdf usr/lib/R/site-library/ShortRead/doc/Overview.pdf"
  "r-bioc-mergeomics=1.26.0-1 mergeomics__Mergeomics.pdf usr/lib/R/site-library/Mergeomics/doc/Mergeomics.pdf"
  "r-cran-psychtools=2.2.9-1 psychtools__factor.pdf usr/lib/R/site-library/psychTools/doc/factor.pdf"
  "r-cran-psychtools=2.2.9-1 psychtools__mediation.pdf usr/lib/R/site-library/psychTools/doc/mediation.pdf"
  "r-cran-g.data=2.4-4 g.data__g.data.pdf usr/lib/R/site-library/g.data/doc/g.data.pdf"
  "r-cran-pcapp=2.0-3-1 pcapp__matlab.pdf usr/lib/R/site-library/pcaPP/doc/matlab.pdf"
  "lammps-doc=20220106.git7586adbb6a+ds1-2 lammps-doc__PDLammps_overview.pdf usr/share/doc/lammps/html/PDF/PDLammps_overview.pdf.gz"
  "gnuplot-doc=5.4.4+dfsg1-2 gnuplot-doc__gnuplot.pdf usr/share/doc/gnuplot/gnuplot.pdf"
  "lammps-doc=20220106.git7586adbb6a+ds1-2 lammps-doc__PDLammps_EPS.pdf usr/share/doc/lammps/html/PDF/PDLammps_EPS.pdf.gz"
  "r-doc-pdf=4.2.2.20221110-2 r-doc-pdf__R-intro.pdf usr/share/R/doc/manual/R-intro.pdf"
  "dejagnu=1.6.3-1 dejagnu__dejagnu.pdf usr/share/doc/dejagnu/dejagnu.pdf.gz"
  "maxima-doc=5.46.0-11 maxima-doc__maximabook-19-Sept-2004.pdf usr/share/doc/maxima-doc/maximabook-19-Sept-2004.pdf.gz"
  "asymptote-doc=2.85+ds-1 asymptote-doc__CAD.pdf usr/share/doc/asymptote/CAD.pdf"
  "gap-polycyclic=2.16-2 gap-polycyclic__manual.pdf usr/share/gap/pkg/Polycyclic/doc/manual.pdf"
  "octave-doc=7.3.0-2 octave-doc__octave.pdf usr/share/doc/octave/octave.pdf"
  "asymptote-doc=2.85+ds-1 asymptote-doc__asy-latex.pdf usr/share/doc/asymptote/asy-latex.pdf"
  "elpa-ess=18.10.2+git20220915.f45542e-3 elpa-ess__ess.pdf usr/share/doc/elpa-ess/ess.pdf.gz"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"
