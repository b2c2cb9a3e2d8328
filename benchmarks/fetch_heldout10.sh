#!/usr/bin/env bash
# heldout10 (benchmarks/data/meta_heldout10.jsonl): 40 paper-like PDFs from 32 Debian packages,
# of kinds the earlier sets lacked, for the metadata check (title, authors, year) on papers
# nobody here tuned on. None of its packages is in an earlier set (no r-cran-* or texlive-*).
# 30 are Bioconductor vignettes: packages were taken from `apt-cache pkgnames r-bioc-` (sorted,
# 170 names, none used before) in the order random.Random(10).shuffle gives, skipping packages
# without a PDF under lib/R/*/doc and PDFs that are not paper-like or have no personal byline
# (NOISeq's generated QC report; graph's graph.pdf and clusterGraph.pdf, geneplotter's
# byChroms.pdf, NetSAM's user guide and annotate's annotate.pdf: no byline; Biostrings' quick
# overview: a table of functions; DelayedArray's and GenomicRanges' talk slides; the
# GenomicRanges HOWTOs: byline only 'Bioconductor Team'), at most 2 PDFs a package, taken in
# C-locale order of file name, until 30 (23 packages, the last qusage, 72nd in that order).
# 10 come from other Debian documentation packages: 40 packages found with apt-cache search or
# known to ship papers or bylined manuals were unpacked (24 had a PDF); their 28 PDFs with a
# title and a personal byline on page 1 (not man pages, reference cards, groff's mom demo
# documents, or manuals/guides whose page 1 names no person: Theora, GLPK, 4ti2, FASTA, CD-HIT,
# Raster3D) were sorted and shuffled with random.Random(10), and the first 10 taken, at most 2
# a package (graphviz-doc's smyrna, dotguide and neatoguide were passed over by that rule).
# Packages unpacked: 4ti2-doc cd-hit codec2 coinor-csdp-doc dsdp-doc eprover fasta3-doc
# fastlink-doc gap-guava gfan glpk-doc gprolog-doc graphviz-doc gretl-doc groff hmmer-doc
# infernal-doc iproute2-doc libsvm-tools libtheora-doc libvorbis-dev loki-doc minisat+
# mrbayes-doc mummer-doc nauty-doc normaliz-doc noweb palp raster3d-doc rcs scheme48-doc sfst
# slepc3.18-doc spass speex-doc tor tree-puzzle-doc yorick-doc zpaq.
# fastlink-doc's seven real journal papers were left out: they ship as PostScript only.
# Its truth was written by a helper reading each paper's pages 1-2 and a picture of page 1,
# before anything was measured on it. Fetched with apt into DIR/pdfs as <package>__<file>.pdf
# (r-bioc- prefix dropped, .pdf.gz unpacked).
#
#   bash benchmarks/fetch_heldout10.sh DIR
#   citeloom ingest DIR/pdfs -p heldout10 && citeloom papers -p heldout10 --json > papers.json
#   .venv/bin/python benchmarks/metadata_truth.py benchmarks/data/meta_heldout10.jsonl papers.json
set -euo pipefail
dir=${1:?usage: fetch_heldout10.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "r-bioc-rtracklayer=1.58.0-1 rtracklayer__rtracklayer.pdf usr/lib/R/site-library/rtracklayer/doc/rtracklayer.pdf"
  "r-bioc-deseq=1.39.0-10 deseq__DESeq.pdf usr/lib/R/site-library/DESeq/doc/DESeq.pdf"
  "r-bioc-titancna=1.36.0-1 titancna__TitanCNA.pdf usr/lib/R/site-library/TitanCNA/doc/TitanCNA.pdf"
  "r-bioc-noiseq=2.42.0-1 noiseq__NOISeq.pdf usr/lib/R/site-library/NOISeq/doc/NOISeq.pdf"
  "r-bioc-graph=1.76.0-2 graph__MultiGraphClass.pdf usr/lib/R/site-library/graph/doc/MultiGraphClass.pdf"
  "r-bioc-graph=1.76.0-2 graph__graphAttributes.pdf usr/lib/R/site-library/graph/doc/graphAttributes.pdf"
  "r-bioc-pcamethods=1.90.0-1 pcamethods__missingValues.pdf usr/lib/R/site-library/pcaMethods/doc/missingValues.pdf"
  "r-bioc-pcamethods=1.90.0-1 pcamethods__outliers.pdf usr/lib/R/site-library/pcaMethods/doc/outliers.pdf"
  "r-bioc-ctc=1.72.0-1 ctc__ctc.pdf usr/lib/R/site-library/ctc/doc/ctc.pdf"
  "r-bioc-annotationdbi=1.60.0-1 annotationdbi__AnnotationDbi.pdf usr/lib/R/site-library/AnnotationDbi/doc/AnnotationDbi.pdf"
  "r-bioc-annotationdbi=1.60.0-1 annotationdbi__IntroToAnnotationPackages.pdf usr/lib/R/site-library/AnnotationDbi/doc/IntroToAnnotationPackages.pdf"
  "r-bioc-geneplotter=1.76.0-1 geneplotter__visualize.pdf usr/lib/R/site-library/geneplotter/doc/visualize.pdf"
  "r-bioc-purecn=2.4.0+dfsg-1 purecn__PureCN.pdf usr/lib/R/site-library/PureCN/doc/PureCN.pdf"
  "r-bioc-qvalue=2.30.0-1 qvalue__qvalue.pdf usr/lib/R/site-library/qvalue/doc/qvalue.pdf"
  "r-bioc-ebseq=1.38.0-1 ebseq__EBSeq_Vignette.pdf usr/lib/R/site-library/EBSeq/doc/EBSeq_Vignette.pdf"
  "r-bioc-makecdfenv=1.74.0-1 makecdfenv__makecdfenv.pdf usr/lib/R/site-library/makecdfenv/doc/makecdfenv.pdf"
  "r-bioc-metagenomeseq=1.40.0-1 metagenomeseq__fitTimeSeries.pdf usr/lib/R/site-library/metagenomeSeq/doc/fitTimeSeries.pdf"
  "r-bioc-metagenomeseq=1.40.0-1 metagenomeseq__metagenomeSeq.pdf usr/lib/R/site-library/metagenomeSeq/doc/metagenomeSeq.pdf"
  "r-bioc-biostrings=2.66.0-1 biostrings__Biostrings2Classes.pdf usr/lib/R/site-library/Biostrings/doc/Biostrings2Classes.pdf"
  "r-bioc-biostrings=2.66.0-1 biostrings__MultipleAlignments.pdf usr/lib/R/site-library/Biostrings/doc/MultipleAlignments.pdf"
  "r-bioc-rsamtools=2.14.0-1 rsamtools__Rsamtools-Overview.pdf usr/lib/R/site-library/Rsamtools/doc/Rsamtools-Overview.pdf"
  "r-bioc-dnacopy=1.72.3-1 dnacopy__DNAcopy.pdf usr/lib/R/site-library/DNAcopy/doc/DNAcopy.pdf"
  "r-bioc-genomicranges=1.50.2+dfsg-1 genomicranges__ExtendingGenomicRanges.pdf usr/lib/R/site-library/GenomicRanges/doc/ExtendingGenomicRanges.pdf"
  "r-bioc-bsgenome=1.66.3-1 bsgenome__BSgenomeForge.pdf usr/lib/R/site-library/BSgenome/doc/BSgenomeForge.pdf"
  "r-bioc-bsgenome=1.66.3-1 bsgenome__GenomeSearching.pdf usr/lib/R/site-library/BSgenome/doc/GenomeSearching.pdf"
  "r-bioc-lpsymphony=1.26.3+dfsg-1 lpsymphony__lpsymphony.pdf usr/lib/R/site-library/lpsymphony/doc/lpsymphony.pdf"
  "r-bioc-annotate=1.76.0+dfsg-1 annotate__GOusage.pdf usr/lib/R/site-library/annotate/doc/GOusage.pdf"
  "r-bioc-annotate=1.76.0+dfsg-1 annotate__chromLoc.pdf usr/lib/R/site-library/annotate/doc/chromLoc.pdf"
  "r-bioc-hilbertvis=1.56.0-1 hilbertvis__HilbertVis.pdf usr/lib/R/site-library/HilbertVis/doc/HilbertVis.pdf"
  "r-bioc-qusage=2.32.0-1 qusage__qusage.pdf usr/lib/R/site-library/qusage/doc/qusage.pdf"
  "graphviz-doc=2.42.2-7+deb12u1 graphviz-doc__leftyguide.pdf usr/share/doc/graphviz/pdf/leftyguide.pdf.gz"
  "graphviz-doc=2.42.2-7+deb12u1 graphviz-doc__libguide.pdf usr/share/doc/graphviz/pdf/libguide.pdf.gz"
  "speex-doc=1.2.1-2 speex-doc__manual.pdf usr/share/doc/speex/manual.pdf.gz"
  "scheme48-doc=1.9.2-2 scheme48-doc__manual.pdf usr/share/doc/scheme48/manual.pdf.gz"
  "glpk-doc=5.0-1 glpk-doc__cnfsat.pdf usr/share/doc/glpk-doc/cnfsat.pdf"
  "gap-guava=3.17+ds-3 gap-guava__manual.pdf usr/share/gap/pkg/guava/doc/manual.pdf"
  "nauty-doc=2.8.6+ds-2 nauty-doc__nug28.pdf usr/share/doc/nauty/nug28.pdf"
  "normaliz-doc=3.9.4+ds-2 normaliz-doc__Normaliz.pdf usr/share/doc/normaliz/Normaliz.pdf"
  "mummer-doc=3.23+dfsg-8 mummer-doc__maxmat3src.pdf usr/share/doc/mummer/maxmat3src.pdf"
  "gfan=0.6.2-6+b1 gfan__manual.pdf usr/share/doc/gfan/manual.pdf.gz"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"
