#!/usr/bin/env bash
# The third PDF question set's papers (benchmarks/data/pdfqa_dev3.jsonl, docs/PDFQA_DEV3.md):
# 18 R package vignettes from 17 Debian packages, fetched with apt and unpacked into DIR/pdfs
# under the names the set uses. Nothing of them is in the repository.
#
#   bash benchmarks/fetch_dev3.sh DIR
#   citeloom eval pdfqa --questions benchmarks/data/pdfqa_dev3.jsonl --corpus-dir DIR -p pdfqa-eval-dev3
set -euo pipefail
dir=${1:?usage: fetch_dev3.sh DIR}
# package=version  file name in the set  path in the package
files=(
  "r-cran-rcpp=1.0.10-1 Rcpp__Rcpp-jss-2011.pdf usr/lib/R/site-library/Rcpp/doc/Rcpp-jss-2011.pdf"
  "r-cran-th.data=1.1-1-1 TH.data__blood_loss_report.pdf usr/lib/R/site-library/TH.data/doc/blood_loss_report.pdf"
  "r-cran-evd=2.3-6.1-1 evd__Multivariate_Extremes.pdf usr/lib/R/site-library/evd/doc/Multivariate_Extremes.pdf"
  "r-cran-flexmix=2.3-18-1 flexmix__flexmix-intro.pdf usr/lib/R/site-library/flexmix/doc/flexmix-intro.pdf"
  "r-cran-glmnet=4.1-6-1 glmnet__Coxnet.pdf usr/lib/R/site-library/glmnet/doc/Coxnet.pdf"
  "r-cran-lme4=1.1-31-1 lme4__Theory.pdf usr/lib/R/site-library/lme4/doc/Theory.pdf"
  "r-cran-ordinal=2022.11-16-1 ordinal__clmm2_tutorial.pdf usr/lib/R/site-library/ordinal/doc/clmm2_tutorial.pdf"
  "r-cran-party=1.3-11-1 party__MOB.pdf usr/lib/R/site-library/party/doc/MOB.pdf"
  "r-cran-partykit=1.2-16-1 partykit__partykit.pdf usr/lib/R/site-library/partykit/doc/partykit.pdf"
  "r-cran-pscl=1.5.5-1+b1 pscl__countreg.pdf usr/lib/R/site-library/pscl/doc/countreg.pdf"
  "r-cran-quantreg=5.94-1 quantreg__rq.pdf usr/lib/R/site-library/quantreg/doc/rq.pdf"
  "r-cran-sandwich=3.0-2-1 sandwich__sandwich.pdf usr/lib/R/site-library/sandwich/doc/sandwich.pdf"
  "r-cran-spam=2.9-1-1 spam__jss15.pdf usr/lib/R/site-library/spam/doc/jss15.pdf"
  "r-cran-strucchange=1.5-3-1 strucchange__strucchange-intro.pdf usr/lib/R/site-library/strucchange/doc/strucchange-intro.pdf"
  "r-cran-tm=0.7-11-1 tm__tm.pdf usr/lib/R/site-library/tm/doc/tm.pdf"
  "r-cran-vcd=1:1.4-11-1 vcd__residual-shadings.pdf usr/lib/R/site-library/vcd/doc/residual-shadings.pdf"
  "r-cran-xts=0.13.0-1 xts__xts.pdf usr/lib/R/site-library/xts/doc/xts.pdf"
  "r-cran-zoo=1.8-11-1 zoo__zoo.pdf usr/lib/R/site-library/zoo/doc/zoo.pdf"
)
bash "$(dirname "$0")/fetch_files.sh" "$dir" "${files[@]}"
