"""The year a paper gives for itself, from its first pages: a journal's citation or issue
line, the paper's own reference, arXiv's stamp, a conference's line, the © or "Published"
line, a manuscript's date, its history line, a date under the title; then the published
version its own note names, then the info dictionary's Subject. Never the file's creation
date, never a year the text cites. Also the date and citation patterns the byline reader
shares (``DATE``, ``CITATION``, ``SELF_CITE``)."""

from __future__ import annotations

import re

from citeloom.structure.header import PDF_METADATA, PDF_TEXT
from citeloom.structure.header import year_ok as _year_ok
from citeloom.text import fold_alnum

YEAR = r"(1[89]\d\d|20\d\d)"
# "© 2019", "(c) 2007–2008 Nicolas Vaughan", "© 2005-10": a range's last year is this edition's;
# "© Author(s) 2013" (Copernicus), "Copyright, 2006 David M. Mount".
# Old TeX fonts lose the circle: "c 2013 Society for Industrial and Applied Mathematics"
# at a line's start.
# The sign itself may stand before a holder of several words, the year after it: "©
# Commonwealth of Australia 2000", "© The Author(s), under exclusive license to Springer
# Nature Switzerland AG 2022" (no number between them).
_SIGN = r"(?:©|\u20dd\s?c|c\s?\u20dd)"  # (LaTeX's \\copyright as some fonts give it: "⃝c")
_COPYRIGHT = re.compile(rf"(?:{_SIGN}|\(c\)|copyright)[,:]?\s*(?:[\w()]+\s+)?{YEAR}"
                        rf"(?:\s*[-–—]\s*(?:{YEAR}|(\d\d)))?\b|^c\s?{YEAR}(?=\s+(?:by\s+)?[A-Z])"
                        rf"|{_SIGN}[,\s]*(?:[^\W\d][\w().’'-]*,?\s+){{2,10}}{YEAR}\b",
                        re.IGNORECASE | re.MULTILINE)
# A journal's own citation of the paper: "Clinical Science (2014) 126, 305–313",
# "International Psychogeriatrics (2014), 26:1", "... Outcomes 2010, 4:1". The volume
# touches its comma or issue: "Morris (1992) 1 ," is a citation with a footnote mark.
# "Journal of Machine Learning Research 15 (2014) 1929-1958": volume, year, pages.
# ("Journal of Econometrics 92 (1999) 1}45": old Elsevier fonts map the en dash to "}")
_VOLUME = re.compile(rf"\({YEAR}\)\s*,?\s*(?:\d+[,:(]|(?:article|paper)\s+(?:no\.|number)"
                     rf"\s*\d+)|\b\d{{1,4}}\s+\({YEAR}\)\s+[A-Z]?\d+\s*[-–}}]\s*[A-Z]?\d+\b")
FAMILY = r"([A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?)"
# "Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1" (a running header);
# "How to cite this article Webb et al. (2017)". Not "(see Smith et al., 2004)".
CITATION = re.compile(rf"\b{FAMILY}\s+et al\.?;?\s+[A-Z][^\n©()]{{0,80}}?\b{YEAR}\s*,"
                       rf"\s*\d+\s*:\s*\d+|cite this article:?\s+{FAMILY}\s+et al\.?,?\s*"
                       rf"\({YEAR}\)")
# Months in English, and as French, German and Spanish papers print them ("27 octobre 2018",
# "3. März 2020", "15 de marzo de 2019").
MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
          r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
          r"janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|"
          r"novembre|d[ée]cembre|januar|februar|m[äa]rz|juni|juli|oktober|dezember|"
          r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|"
          r"octubre|noviembre|diciembre|"
          # Portuguese and Italian ("17 de novembro de 2015", "3 maggio 2019")
          r"janeiro|fevereiro|mar[çc]o|maio|junho|julho|setembro|outubro|novembro|dezembro|"
          r"gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre)\.?")
# "Published online: 10 January 2019", else "Accepted: 12 December 2018" (Nature prints
# both; the first is the paper's year). Between the word and the year only a date's parts
# ("Published on May 3, 2021"), not prose ("published in a 1917 Bulletin").
_ON_DATE = (rf"(?:\s+on)?\s*:?\s*(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?(?:{MONTH},?\s+)?"
            rf"(?:\d{{1,2}},?\s+)?")
_PUBLISHED = re.compile(rf"\bpublished(?:\s+online)?{_ON_DATE}{YEAR}\b", re.IGNORECASE)
_ACCEPTED = re.compile(rf"\baccepted{_ON_DATE}{YEAR}\b", re.IGNORECASE)
# A date: "January 6, 2023", "June 2002", "5 June 2017", "3rd February 2023", "2023/01/06",
# "2022-11-13", and a date line's "06/16/2014" (month first) or "16.06.2014".
_DAYS = (rf"\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–—]\s*(?:{MONTH}\s+)?\d{{1,2}}"
         rf"(?:st|nd|rd|th)?)?")
_DAY, _MONTH_NO = r"(?:0?[1-9]|[12]\d|3[01])", r"(?:0?[1-9]|1[0-2])"
DATE = re.compile(rf"\b(?:{MONTH},?\s+(?:{_DAYS},?\s+)?{YEAR}|\d{{1,2}}-{MONTH}-{YEAR}|"
                   rf"\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:de\s+)?{MONTH},?\s+(?:de\s+)?{YEAR}|"
                   rf"{YEAR}[-/]{_MONTH_NO}[-/]{_DAY}|{_MONTH_NO}/{_DAY}/{YEAR}|"
                   rf"{_DAY}\.{_MONTH_NO}\.{YEAR})\b", re.IGNORECASE)
# A thesis's place and year: "Budapest, 2022".
_PLACE_YEAR = re.compile(rf"^[A-Z][^\W\d_]+(?:[ -][A-Z][^\W\d_]+)?,\s*{YEAR}$")
# A document's kind and its year under the title: "Preliminary report — 2026", "Working
# paper, 2019".
_KIND_YEAR = re.compile(rf"^(?:[A-Z][a-z]+\s+)?(?i:report|preprint|draft|working\s+paper|"
                        rf"manuscript|technical\s+(?:report|note)|white\s+paper)"
                        rf"\s*[—–:,-]\s*{YEAR}$")
# A journal's issue line: JSS "May 2004, Volume 11, Issue 9", "Volume 11, Issue 9 ...
# 2004"; R News "Vol. 2/2, June 2002"; "Vol. 12, No. 3, March 2019".
_ISSUE = re.compile(
    rf"\b{YEAR},\s*Volume\s+\d+,\s*Issue\s+\d+|"
    # (volume and issue in Roman numerals too: IJLTEMAS's "Volume VI, Issue VI, June 2017")
    rf"\bVolume\s+(?:\d+|[IVXLC]+),\s*Issue\s+(?:\d+|[IVXLC]+)\b[^\n]{{0,40}}?\b{YEAR}\b|"
    # a journal's footer: "Dermatological Nursing 2016, Vol 15, No 4"
    rf"\b{YEAR},\s*Vol\.?\s*\d+,\s*No\.?\s*\d+\b|"
    # the AEA's running head: "American Economic Journal: Applied Economics 2021, 13(4): 70–100"
    rf"\b{YEAR},\s*\d{{1,4}}\s*\(\d{{1,3}}\)\s*:\s*\d+\s*[-–]\s*\d+\b|"
    # (its Papers and Proceedings without an issue: "AEA Papers and Proceedings 2025, 115: 35–39")
    rf"\bProceedings\s+{YEAR},\s*\d{{1,4}}\s*:\s*\d+\s*[-–]\s*\d+\b|"
    rf"\bVol\.\s*\d+\s*/\s*\d+\s*,\s*{MONTH}\s+{YEAR}\b|"
    # (or set apart by slashes: CACM's "Volume 12 / Number 10 / October, 1969")
    # (IRJMETS's "Volume:04/Issue:07/July-2022", IJCA's "Volume 165 – No.9, May 2017",
    # IJFANS's "Volume 11, Iss 12, Dec 2022")
    rf"\bVol(?:ume|\.)?\s*:?\s*\d+\s*[,/–-]\s*(?:No\.?|Number|Issue|Iss\.?)\s*:?\s*\d+\s*[,/]?\s*"
    rf"(?:{MONTH}(?:,?\s+|-))?\(?{YEAR}\)?(?!\s*[–-]\s*\d)|"  # (not a page range: Taylor &
    # Francis's "Vol. 57, No. 11, 1807–1829")
    # TUGboat's running head "TUGboat, Volume 32 (2011), No. 2" (a draft's "Volume 0" is none)
    rf"\bVolume\s+[1-9]\d*\s*\({YEAR}\)\s*,\s*No\.\s*\d+|"
    # VLDB's reference format: "PVLDB, 17(5): XXX-XXX, 2024."
    rf"\bPVLDB,\s*\d+\s*\(\d+\)\s*:\s*[\dX]+\s*[-–]\s*[\dX]+\s*,\s*{YEAR}|"
    # PNAS's foot: "PNAS | January 5, 2021 | vol. 118 | no. 1" (a draft's "vol. XXX" too)
    rf"\bPNAS\s*\|\s*(?:{MONTH}\s+\d{{1,2}},?\s+)?{YEAR}\s*\|\s*vol\.|"
    # A&A's manuscript header: "Astronomy & Astrophysics manuscript no. ms … ©ESO 2018"
    rf"\bAstronomy\s*&\s*Astrophysics\s+manuscript\s+no\.[^\n]{{0,80}}?\bESO\s+{YEAR}\b|"
    # PMC's author manuscript: "Published in final edited form as: J Phys Chem B. 2021 April
    # 22; 125(15)" (its "available in PMC 2022" is the release, a year later)
    rf"\bPublished\s+in\s+final\s+edited\s+form\s+as\s*:\s*[^\n]{{0,120}}?(?<!\d){YEAR}\b|"
    # an IEEE letter before its issue: "VOL. XX, NO. XX, XX 2016"
    rf"\bVOL\.\s*XX\s*,\s*NO\.\s*XX\s*,\s*(?:XX|{MONTH})\s+{YEAR}\b", re.IGNORECASE)
# arXiv's side stamp: "arXiv:2206.01062v1 [cs.CL] 2 Jun 2022" (the category marks the stamp,
# not a citation of another preprint).
_ARXIV = re.compile(rf"arXiv:\s*[\w./-]+\s*\[[\w.\-]+\]\s*\d{{1,2}}\s+{MONTH}\s+{YEAR}\b"
                    # old identifiers' stamps have no category ("astro-ph/9905116v4 16 Dec 2000")
                    rf"|arXiv:\s*[a-z-]+(?:\.[A-Z]{{2}})?/\d{{7}}v\d+\s+\d{{1,2}}\s+{MONTH}\s+{YEAR}\b"
                    # bioRxiv's and medRxiv's: "this version posted December 17, 2024."
                    rf"|\bthis\s+version\s+posted\s+{MONTH}\s+\d{{1,2}},\s+{YEAR}\b",
                    re.IGNORECASE)
ANY_DATE = DATE.pattern[2:-2]  # the date alternatives, to build lines around them
# The paper's own reference, as the publisher prints it on page 1: ACM's "ACM Reference
# Format: Ben Trovato, G.K.M. Tobin, and Lars Thørväld. 2018. The Name of the Title. ...",
# "Cite this article as: A. Smith and B. Jones (2019)". Its names are the authors.
SELF_CITE = re.compile(
    rf"(?:ACM Reference Format|Reference Format|Cite this (?:article|paper|chapter)(?: as)?|"
    rf"To cite this (?:article|paper)|Please cite (?:this (?:article|paper) )?as)\s*:\s*"
    rf"(?P<names>[^\n]{{3,600}}?)\s*(?:\.\s+|\s\(|,\s+)(?P<year>{YEAR})\)?[.,]", re.IGNORECASE)
# (ACM's older form: "ACM Reference Format: Fabio Luporini, …, and Paul H. J. Kelly, 2014. …")
# A thesis's academic year: "Anno Accademico 2020-2021", "Academic Year 2019/20".
_ACADEMIC_YEAR = re.compile(r"\b(?:Anno\s+Accademico|Academic\s+Year|Ann[ée]e\s+"
                            r"(?:universitaire|acad[ée]mique)|Curso\s+(?:acad[ée]mico|escolar)|"
                            r"Studienjahr|Akademisches\s+Jahr)\s*:?\s*((?:19|20)\d\d)\s*"
                            r"[-–/]\s*((?:19|20)?\d\d)\b", re.IGNORECASE)
# JSTOR's cover page: "Source: The Public Opinion Quarterly , Autumn, 1993, Vol. 57, No. 3"
# (its "This content downloaded … on Fri, 29 Nov 2024" is the reader's date).
_JSTOR_SOURCE = re.compile(rf"^Source:\s[^\n]{{0,160}}?\b{YEAR}\b|"  # a row of its own, or
                           rf"\sSource:\s[^\n]{{0,160}}?\b{YEAR}\b"  # in the cover's paragraph
                           rf"(?=[^\n]{{0,300}}\bStable URL\b)", re.MULTILINE)
# IOP's cover page: "To cite this article: A Bogdanchikov et al 2013 J. Phys.: Conf. Ser. 423
# 012027" (initials without full stops, the year with no mark around it).
IOP_CITE = re.compile(rf"To cite this article\s*:\s*(?P<names>[^\n]{{3,300}}?)\s+"
                      rf"(?P<year>{YEAR})\s+[A-Z][\w.]*[.:]?\s")
# A conference's own line (a running head or first-page footer): a date with a range of
# days ("June 03–05, 2018", "October 29–November 2, 2023", "September 18-20, 2006"), or
# "Proceedings of the ASME 2023 ...". Only short lines of page 1: a reference to another
# conference sits in a paragraph or the reference list.
_CONF_RANGE = re.compile(rf"\b{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*[-–—]\s*"
                         rf"(?:{MONTH}\s+)?\d{{1,2}}(?:st|nd|rd|th)?,?\s+{YEAR}\b",
                         re.IGNORECASE)
_PROCEEDINGS = re.compile(rf"^(?:Preprint:?\s+|In\s+)?(?:Proceedings|Proc\.)\s+of\s+"
                          rf"[^\n]{{0,120}}?"
                          rf"(?<!\d){YEAR}\b")  # "Proceedings of PracticalTEX2004"
# A journal's line on page 1 as OUP, Springer and others print it: "Bioinformatics, 37(5),
# 2021, 123–130", "Nucleic Acids Research, 2015, Vol. 43, No. 7", "Vol. 32 no. 12 2016,
# pages 1–8", "Machine Learning, 56, 9–33, 2004".
_JOURNAL_LINE = re.compile(
    # ACM's running head: "ACM OOPS Messenger 4,4 (Oct. 1993), 2-27."
    rf"\b\d{{1,4}}\s*,\s*\d{{1,3}}\s*\((?:{MONTH}\s+)?{YEAR}\)\s*,\s*\d+\s*[-–]\s*\d+\b|"
    rf"\b\d{{1,4}}\s*\(\d{{1,4}}\)\s*,\s*{YEAR}\s*,|[^\W\d_.],\s*{YEAR}\s*,\s*Vol(?:ume|\.)\s*\d|"
    rf"\bVol\.?\s*\d+\s+no\.?\s*\d+\s+{YEAR}\s*,\s*pages?\b|"
    # a journal's running head: "Vol. 4 No. 9 2017 / IFCoLog Journal …", "JGP - Vol. 5, n. 4 1988"
    rf"\bVol\.?\s*\d+\s*,?\s*(?:No|n)\.?\s*\d+\s*,?\s+{YEAR}\s*(?:/|$)|"
    rf"[^\W\d_.],\s*\d{{1,4}}\s*,\s*\d+\s*[-–]\s*\d+\s*,\s*{YEAR}\b|"
    # Pergamon's and Elsevier's old running head: "J. Behav. Ther. & Exp. Psychiat. Vol. 25,
    # No. 1, pp. 49-59, 1994" (an OCR'd "No. I."); a line of page 1, not a reference
    rf"\bVol\.?\s*\d+\s*,\s*No\.?\s*[\dIl]+\.?\s*,?\s*pp\.?\s*\d+\s*[-–]\s*\d+\s*,\s*{YEAR}|"
    # Elsevier's head today: "Journal of Financial Economics 151 (2024) 103745"
    rf"^[A-Z][^\W\d_][\w&:,.' -]{{3,80}}?\s\d{{1,4}}\s+\({YEAR}\)\s+"
    rf"(?:\d{{5,7}}|\d+\s*[-–]\s*\d+)$|"
    # an IEEE journal's running head without volume ("JOURNAL OF SELECTED TOPICS IN SIGNAL
    # PROCESSING, 2026, 1"), not the template's "JOURNAL OF LATEX CLASS FILES"
    rf"^(?-i:(?!.*LATEX|.*CLASS FILES)(?:IEEE\s+)?(?:JOURNAL|TRANSACTIONS|LETTERS)\b"
    rf"[A-Z ,&-]{{4,100}}),"
    rf"\s*{YEAR}(?:\s*,\s*\d{{1,4}})?$|"
    # Frontiers' head: "Research Article 21 January 2015"
    rf"^(?:(?:Original\s+)?Research|Review|Methods|Brief\s+Research\s+Report)\s+Article\s+\d{{1,2}}\s+"
    rf"{MONTH}\s+{YEAR}$",
    re.IGNORECASE)
# A conference's name and year on page 1: "(NeurIPS 2019)", "Published as a conference
# paper at ICLR 2020", "This CVPR 2019 paper is the Open Access version".
_VENUE_YEAR = re.compile(
    r"(?:\(|\bconference\s+paper\s+at\s+|\bThis\s+)(?:NeurIPS|NIPS|ICML|ICLR|CVPR|ICCV|ECCV|WACV|AAAI|IJCAI|ACL|"
    r"EMNLP|NAACL|EACL|COLING|LREC|KDD|SIGIR|SIGMOD|VLDB|ICDE|WWW|CHI|UIST|CSCW|SOSP|OSDI|"
    r"NSDI|EuroSys|ASPLOS|ISCA|PLDI|POPL|OOPSLA|ICSE|FSE|CCS|NDSS|INTERSPEECH|ICASSP|"
    rf"AISTATS|UAI|COLT|MICCAI|ICRA|IROS|CoRL|ISMIR|RecSys|WSDM|CIKM)['’\s-]*{YEAR}\b")
# A venue's line of its own: a review copy's head ("CVPR 2015 Submission #1881.
# CONFIDENTIAL REVIEW COPY", with its number: an unfilled template's "#****" is no
# submission), a workshop's "CSSSA 2026 Extended Abstract"; a magazine's running head
# ("COMMUNICATIONS OF THE ACM | FEBRUARY 2016 | VOL. 59 | NO. 2") or foot.
_VENUE_LINE = re.compile(
    rf"^[A-Z][A-Za-z]{{1,9}}[\s-]?{YEAR}\s+(?:Submission\s*(?:#|ID:?)\s*\d+|"
    rf"Extended\s+Abstract$|Short\s+Paper$)|"
    rf"\b(?i:{MONTH})\s+{YEAR}\s*\|\s*(?i:VOL(?:UME|\.)?)\s*\d+|"
    # (Nature's foot: "NATURE | VOL 523 | 30 JULY 2015", "… | VOL 16 | OCTOBER 2021 | 1079–1085")
    rf"\b(?i:VOL(?:UME|\.)?)\s*\d+\s*\|\s*(?:\d{{1,2}}\s+)?(?i:{MONTH})\s+{YEAR}\b",
    re.MULTILINE)
# The paper's own venue to come, on page 1 (often its running foot): "To appear in OSDI
# 2004", "Accepted for publication in IEEE TPAMI, 2021"; a report's own line: "Google
# Technical Report dapper-2010-1, April 2010".
_TO_APPEAR = re.compile(rf"^(?:to\s+appear\s+in|accepted\s+(?:for\s+publication\s+)?(?:in|at|by))"
                        rf"\s+[^\n]{{0,100}}?(?<!\d){YEAR}\b", re.IGNORECASE)
_REPORT_LINE = re.compile(rf"\b(?:technical|research)\s+report\b[^\n]{{0,60}}?(?:{ANY_DATE})|"
                          rf"^SAND\s?{YEAR}-\d{{3,5}}[A-Z]{{0,2}}$",  # Sandia's report number
                          re.IGNORECASE)
# A conference's short name with its year and dates, as ACM's first-page block prints it
# (in a paragraph of any length): "SOSP’15, October 4–7, 2015, Monterey, CA".
_CONF_TAG = re.compile(rf"\b[A-Z][A-Za-z]{{1,9}}\s?['’](\d\d)\s*,\s*(?i:{MONTH})\s+(?:\d{{1,2}}\s*"
                       rf"[-–—]\s*(?:(?i:{MONTH})\s+)?\d{{1,2}},?\s+)?{YEAR}\b")  # ("BioKDD'18,
# August 2018, London, UK": a month without days)
# ACM's conference line, its acronym's year agreeing with the date's: "SIGMOD'25, June
# 22-27, 2025, Berlin, Germany", "WWW 2010, April 26–30, 2010, Raleigh, North Carolina".
# The venue's own year, where a template's Reference Format or © line kept its 2018.
_ACM_VENUE = re.compile(rf"(?:^|(?<=[.;]\s))[A-Z][A-Za-z]{{1,9}}\s?(?:['’](\d\d)|(\d{{4}}))"
                        rf"(?:\s+(?:Companion|Adjunct))?\s*,"  # "GECCO ’20 Companion, July 8–12"
                        rf"\s*(?i:{MONTH})\s+\d{{1,2}}(?:\s*[-–—]\s*(?:(?i:{MONTH})\s+)?"
                        rf"\d{{1,2}})?,\s+{YEAR}\s*,\s+[A-Z]", re.MULTILINE)
# LIPIcs's template venue, "Conference on Very Important Topics": in its sample's Subject
# ("CVIT 2016") and DOI ("10.4230/LIPIcs.CVIT.2016.23"), never a paper's own.
TEMPLATE_VENUE = re.compile(r"\bCVIT[\s.]2016\b", re.IGNORECASE)
# ACM's block for a small venue: "TAICHI 2026, Taiwan" on a short line of its own.
# (or "SPACES-2018, Dept. of ECE, K L Deemed to be UNIVERSITY", a running head)
_ACRONYM_YEAR = re.compile(rf"^[A-Z]{{3,10}}(?:\s+|-){YEAR},\s+[A-Z][\w .,]{{1,60}}$")
# AAAI's and IJCAI's header: "The Thirty-Third AAAI Conference on Artificial Intelligence
# (AAAI-19)" (a two-digit year).
_CONF_PAREN = re.compile(r"\bConference\b[^()\n]{0,120}\(\s*[A-Z][A-Za-z]{1,9}[-–\s'’]?"
                         r"(\d\d)\s*\)")
# A conference's running foot with its year twice: "2013 USENIX Annual Technical Conference
# (USENIX ATC ’13)" (the two must agree).
_CONF_NAMED = re.compile(rf"(?<!\d){YEAR}\s+[A-Z][^()\n]{{0,80}}?\b(?:Conference|Symposium|"
                         r"Workshop)\b[^()\n]{0,40}\(\s*[A-Z][\w\s/&-]{1,20}?\s?['’](\d\d)\s*\)")
# ICML's and AISTATS's first-page footnote, which Docling may run into a paragraph:
# "Proceedings of the 33rd International Conference on Machine Learning, New York, NY, USA,
# 2016. JMLR: W&CP volume 48. Copyright 2016 by the author(s)."
_PROC_NOTE = re.compile(rf"\bProceedings\s+of\s+the\s+\d+\s?(?:st|nd|rd|th)\s+[^\n]{{0,140}}?"
                        rf"(?<!\d){YEAR}\.\s+(?:JMLR|PMLR|Copyright)\b")
# A note about another version: "This article originally appeared in TUGboat Vol 13(4), 1992".
_ELSEWHERE = re.compile(r"\b(?:appear\w*|original\w*|reprint\w*|adapted|based\s+on|"
                        r"extend\w*|see)\b", re.IGNORECASE)
# Dates a journal or preprint prints about the paper itself: revtex's "(Dated: December 27,
# 2018)", AASTeX's "Draft version February 26, 2021", Elsevier's "Preprint submitted to
# Elsevier June 8, 2018", "Submitted to ECP on January 2, 2013"; a working paper's or
# vignette's own version line, "Version: June 28, 2019", "This version: March 2020", also in
# a footnote ("…; Current version: July 12, 2023;") (not
# "First version:", not a build stamp such as "typeset on ...": that is the file's date).
_PAPER_DATE = re.compile(
    rf"\(Dated:?\s*(?:{ANY_DATE})\)|\bDraft version\s+(?:{ANY_DATE})|"
    rf"\b(?:preliminary\s+)?draft\s*[,:]\s*(?:{ANY_DATE})|"  # TUGboat's "preliminary draft, …"
    rf"^Date:\s*(?:(?:revision|revised|version)\s*:\s*)?(?:{ANY_DATE})|"  # amsart's footnote
    # "Date: March 10, 2011.", "Date: Revision: May 24, 2023."
    rf"\b(?:Preprint|Manuscript|Paper)\s+submitted\s+to\b[^\n]{{0,80}}?(?:{ANY_DATE})|"
    rf"(?:^|(?<=[;.]\s))(?:(?:This|Current|Latest)\s+)?version\s*:\s*(?:{ANY_DATE})|"
    # a date with its weekday opening a line (Quarto's "Friday, December 5, 2025")
    rf"^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day,?\s+(?:{ANY_DATE})",
    re.IGNORECASE | re.MULTILINE)
# The history line: "Received 4 July 2013; revised 10 December 2013; accepted 1 January
# 2014", "(Received April 1, 2004; revised November 20, 2008)": the last of its dates.
_HISTORY = re.compile(
    rf"\bReceived:?\s+(?:on\s+)?(?:{ANY_DATE})(?:[^\n]{{0,60}}?\b(?:revised|accepted|"
    rf"published)(?:\s+\w+){{0,2}}:?\s+(?:on\s+)?(?:{ANY_DATE}))*", re.IGNORECASE)
# The document's own build line, which the reader sees on its pages (unlike the file's
# creation date, which only the info dictionary holds): "This document corresponds to Rcpp
# version 1.0.8 and was typeset on January 11, 2022", "This version was compiled on
# February 10, 2020". After a date under the title, which the author set.
_BUILT = re.compile(rf"\b(?:typeset|compiled)\b[^\n]{{0,60}}?\bon\s+(?:{ANY_DATE})",
                    re.IGNORECASE)
# A thesis's title page: "A dissertation submitted ... in The University of Michigan 2008".
_THESIS = re.compile(r"\b(?:thesis|dissertation)\b", re.IGNORECASE)


# The paper's own note about its published version, on any page (R vignettes and reprints
# of journal papers): "The original paper is: <title>. Journal of Statistical Software 24:2,
# 2008", "A previous version of this manuscript was published in the Journal of Statistical
# Software (Hahsler, Hornik, and Buchta 2008)", "A shorter version of this introduction ... is
# published as Karatzoglou, Smola, Hornik, and Zeileis (2004)". Not a preliminary,
# conference or thesis version: that is another document.
_NOTE_NOUN = (r"(?:package\s+)?"
              r"(?:manuscript|paper|article|document|vignette|introduction|note|work|report)"
              r"(?:\s+(?:to|of|for)\s+(?:the\s+)?(?:R\s+)?package\s+[\w.]+)?")
_VERSION_NOTE = re.compile(
    rf"\b(?:an?|the)\s+(?:(?:previous|earlier|shorter|original|first)\s+)?version\s+(?:of|to)\s+"
    rf"this\s+{_NOTE_NOUN}\b"
    r"|\bthe\s+original\s+(?:paper|article)\s+is\s*:"
    rf"|\bthis\s+{_NOTE_NOUN}\s+(?:is|was|has\s+been)\s+(?:an?\s+)?(?:\(?slightly\)?\s+)?"
    r"(?:updated|up[-\s]to[-\s]date|modi(?:fi|\ufb01|\s)ed|revised|adapted|corrected)\s+"
    r"(?:version\s+of|from)\b"
    rf"|\bthis\s+{_NOTE_NOUN}\s+(?:was|has\s+been)\s+(?:originally\s+|first\s+)?published\s+"
    r"(?:in\s+(?:a\s+)?(?:similar|slightly\s+different|shorter|longer)\s+form\s+)?(?:as|in)\b",
    re.IGNORECASE)
# "... a modified version of Zeileis, Leisch, Hornik, and Kleiber (2002), which ...": the note
# names the published version by its authors and year, with or without the venue's name
_NAMED_VERSION = re.compile(rf"^\s*[A-Z][^\W\d_]+(?:(?:,?\s+and\s+|,?\s*&\s*|,\s*|\s+)"
                            rf"[A-Z][^\W\d_]*\.?){{0,8}}(?:\s+et\s+al\.?)?\s*\({YEAR}[a-z]?\)")
_OTHER_VERSION = re.compile(r"\b(?:preliminary|extended|conference|workshop|abridged)\s+"
                            r"version\b|\b(?:proceedings|proc\.|conference|workshop|symposium|"
                            r"meeting|congress|thesis|dissertation)\b", re.IGNORECASE)
_VENUE = re.compile(r"journal|news|proceedings|press|\bvol", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?][\"”’)]?\s+(?=[A-Z])")


def version_note_year(text: str) -> int | None:
    """The year of the published version a paper's own note names, when the note names one
    year (two: which is it? none taken)."""
    for m in _VERSION_NOTE.finditer(text):
        rest = text[m.end(): m.end() + 220]
        if m.group(0).rstrip().endswith(":"):  # "The original paper is: ... Journal 24:2, 2008"
            y = re.search(rf"\b{YEAR}\b", rest)
            rest = rest[: y.end()] if y else ""
            if not _VENUE.search(rest):
                continue
        else:  # the rest of the sentence
            end = _SENTENCE_END.search(rest)
            rest = rest[: end.start() + 1] if end else rest
        sentence = m.group(0) + rest
        if _OTHER_VERSION.search(sentence) or not (re.search(
                r"published|appeared|journal|news|original paper", sentence, re.IGNORECASE)
                or _NAMED_VERSION.match(rest)):
            continue
        years = set(re.findall(rf"\b{YEAR}[a-z]?\b", rest))  # "Leisch (2004b)"
        if len(years) == 1 and _year_ok(int(next(iter(years)))):
            return int(next(iter(years)))
    return None


def _first_year(rx: re.Pattern[str], text: str) -> int | None:
    """The year of ``rx``'s first match with a plausible one (of a range: its end)."""
    return _first_dated(rx, text)[0]


def _first_dated(rx: re.Pattern[str], text: str) -> tuple[int | None, str]:
    """:func:`_first_year`, and the line of ``text`` that match stands on."""
    for m in rx.finditer(text):
        found = [int(g) for g in m.groups() if g and g.isdigit()]
        year = found[-1] if found else None
        if year is not None and year < 100 and len(found) > 1:  # "2005-10": 2010
            year += found[-2] // 100 * 100 + (100 if year < found[-2] % 100 else 0)
        if year and _year_ok(year):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            return year, text[start:end if end >= 0 else len(text)]
    return None, ""


# "Created: 20 February, 2013 Last modified: 22 October, 2015": the last change's date.
# ("10 October 2012, Revised 8 October 2014" keeps the first: the truths of the seen sets
# take the original date there.)
_MODIFIED = re.compile(r"\blast\s+(?:modified|updated|changed)\b\s*:?\s*(?:on\s+)?",
                       re.IGNORECASE)


_PUBLISHER = re.compile(r"\b(?:wiley|verlag|springer|elsevier|francis|university press|"
                        r"ieee|acm|kluwer|birkh[aä]user|sage|journal|society)\b", re.IGNORECASE)


# MNRAS's LaTeX template before publication: volume 000 and the template's year, then the
# day it was built ("MNRAS 000, 1–19 (2016), Preprint 17 February 2017"; "Mon. Not. R.
# Astron. Soc. 000, ??–?? () Printed 23 June 2016"): the build's year.
_MNRAS_DRAFT = re.compile(rf"\b(?:MNRAS|Mon\.\s*Not\.\s*R\.\s*Astron\.\s*Soc\.)\s+000\b"
                          rf"[\s\S]{{0,60}}?\b(?:Preprint|Printed)\s+\d{{1,2}}\s+{MONTH}\s+{YEAR}",
                          re.IGNORECASE)


# HAL's cover page: the reference under "To cite this version", closed by the deposit's id
# ("… FACS 2015, Oct 2015, Niterói, Brazil. pp.31-47, ⟨10.1007/…⟩. ⟨hal-01305026⟩"; the
# brackets may read "ff", or U+FFFF); its last year is the venue's, not the deposit's
# "Submitted on". The id's prefix names HAL's portal: "hal-", "halshs-", "inria-", "tel-" …
_HAL_CITE = re.compile(r"([^\n]{5,600}?)(?:⟨|\bff|\uffff)?(?:hal\w*|inria|tel|cea|inserm|"
                       r"pasteur|dumas|in2p3|insu|ird|lirmm|emse)-\d{6,}")


# A date in figures alone on a line under the title: ISO's "2019-12-31", "04-20-2009",
# "20.04.2009", "4/20/2009" (the year is the four digits, whichever order the rest has).
_NUMERIC_DATE = re.compile(rf"{YEAR}-[01]\d-[0-3]\d|\d{{1,2}}[-./]\d{{1,2}}[-./]{YEAR}")


_DATE_LABEL = re.compile(rf"\bdate\s*:\s*(?:\d{{1,2}}[./-]){{1,2}}{YEAR}\b", re.IGNORECASE)


def _own_date(line: str) -> re.Match[str] | None:
    """A line's first date, but not one a move or a leave is dated by ("After December
    2009: Department of Mathematics …" in an address)."""
    for m in DATE.finditer(line):
        if not re.search(r"\b(?:after|until|till|since|before|from)\s+$", line[:m.start()],
                         re.IGNORECASE):
            return m
    return None


def _header_year(header: list[str]) -> int | None:
    """The year of a date in the header under the title ("June 2002", "January 6, 2023",
    "Budapest, 2022", "2021" on a line of its own; after "Last modified:" where a line has
    two)."""
    for line in header:
        if len(line) > 200:
            continue
        mod = _MODIFIED.search(line)
        m = (mod and DATE.match(line, mod.end())) or (
            _own_date(line) or _PLACE_YEAR.match(line) or _KIND_YEAR.match(line)
            or re.fullmatch(rf"{YEAR}", line.strip(" ."))  # a year on a line of its own
            or _NUMERIC_DATE.fullmatch(line.strip(" .")))  # "2019-12-31", "04-20-2009"
        m = m or _DATE_LABEL.search(line)  # "Author: … Date: 03.2026"
        year = m and next((int(g) for g in m.groups() if g), None)
        if year and _year_ok(year):
            return year
    return None


def _own_reference_year(text: str, title: str) -> int | None:
    """The year of the paper's own reference, known by its title right after "(YEAR).":
    JOSS's footer "Haghighi et al., (2018). PyCM: Multiclass confusion matrix …"."""
    key = fold_alnum(title)[:40]
    if len(key) < 15:
        return None
    for m in re.finditer(rf"\(\s*{YEAR}\s*\)\s*[.,]?\s+", text):
        if fold_alnum(text[m.end():m.end() + 2 * len(key)]).startswith(key):
            return int(m.group(1)) if _year_ok(int(m.group(1))) else None
    return None


def paper_year(text: str, info: dict[str, str], header: list[str] | None = None,
               first_page: list[str] | None = None, whole: str = "", title: str = ""
               ) -> tuple[int | None, str | None]:
    """The journal's citation or issue line, the paper's own reference (ACM's "Reference
    Format", JOSS's footer); the conference's own line (page 1); arXiv's stamp (a
    version's date: the venue's year is the one to cite); the © or "Published" line, a
    manuscript's "Dated:"/"Draft version"/"Preprint submitted to ..." date, the last date
    of its "Received ...; accepted ..." line; then a date in the header under the title
    ("June 2002", "January 6, 2023", "Budapest, 2022", "2021"), a thesis's "submitted ...
    2008", the document's "typeset on <date>" line; then the year of the published version
    the paper's own note names, on any page of ``whole`` ("A previous version of this
    manuscript was published in ... (2008)"); then a year in the info dictionary's
    Subject. Never the file's creation date (a paper printed to PDF years later carries
    that year), never a year cited in the text."""
    if m := _MNRAS_DRAFT.search(text):  # MNRAS's template: its "Preprint"/"Printed" date
        return int(m.group(1)), PDF_TEXT
    for m in _HAL_CITE.finditer(text):  # HAL's cover: its "To cite this version" reference
        years = [int(y) for y in re.findall(rf"\b{YEAR}\b", m.group(1)) if _year_ok(int(y))]
        if years and not re.search(r"submitted\s+on|HAL\s+Id", m.group(1), re.IGNORECASE):
            return years[-1], PDF_TEXT
    for m in _ACM_VENUE.finditer(text):
        short, full, year = m.group(1), m.group(2), m.group(3)
        if (short and year.endswith(short) or full == year) and _year_ok(int(year)):
            return int(year), PDF_TEXT
    for rx in (_JSTOR_SOURCE, _VOLUME, CITATION, _ISSUE, SELF_CITE, IOP_CITE, _VENUE_LINE):
        year = _first_year(rx, text)
        if year:
            return year, PDF_TEXT
    if title and (year := _own_reference_year(text, title)):
        return year, PDF_TEXT
    for line in first_page or []:  # the conference's own line
        m = _CONF_TAG.search(line)
        if m and m.group(2).endswith(m.group(1)) and _year_ok(int(m.group(2))):
            return int(m.group(2)), PDF_TEXT
        m = _PROC_NOTE.search(line)
        if m and _year_ok(int(m.group(1))):
            return int(m.group(1)), PDF_TEXT
        m = _ACRONYM_YEAR.match(line.strip())
        if m and _year_ok(int(m.group(1))):
            return int(m.group(1)), PDF_TEXT
        m = _CONF_NAMED.search(line) if len(line) <= 250 else None
        if m and m.group(1).endswith(m.group(2)) and _year_ok(int(m.group(1))):
            return int(m.group(1)), PDF_TEXT
        m = _CONF_PAREN.search(line) if len(line) <= 250 else None
        if m and (_year_ok(year := 2000 + int(m.group(1))) or _year_ok(year := year - 100)):
            return year, PDF_TEXT
        if len(line) <= 250 and not re.search(r"\bet al\b|^\[\d+\]", line):
            m = _CONF_RANGE.search(line) or _PROCEEDINGS.match(line) or _TO_APPEAR.search(line)
            if not m and len(line) <= 200 and not _ELSEWHERE.search(line):
                m = (_JOURNAL_LINE.search(line) or _VENUE_YEAR.search(line)
                     or _REPORT_LINE.search(line))
            year = m and next((int(g) for g in m.groups() if g), None)
            if year and _year_ok(year):
                return year, PDF_TEXT
    if year := _first_year(_ARXIV, text):
        return year, PDF_TEXT
    for rx in (_COPYRIGHT, _PUBLISHED, _ACCEPTED, _PAPER_DATE):
        year, line = _first_dated(rx, text)
        if year and rx is _COPYRIGHT and not _PUBLISHER.search(line):
            # a later date under the title is this version's ("© 2013" … "May 4, 2016"),
            # unless a publisher holds the ©: a journal's paper reprinted and built later
            year = max(year, _header_year(header or []) or 0)
        if year:
            return year, PDF_TEXT
    for m in _HISTORY.finditer(text):
        years = [int(y) for y in re.findall(rf"\b{YEAR}\b", m.group(0))]
        if years and _year_ok(max(years)):
            return max(years), PDF_TEXT
    if year := _header_year(header or []):
        return year, PDF_TEXT
    for line in first_page or []:  # a date on its own on page 1: its foot's "May 18, 2019"
        m = DATE.fullmatch(line.strip(" .,;()"))  # (elsarticle's "Preprint for …, <date>")
        year = m and next((int(g) for g in m.groups() if g), None)
        if year and _year_ok(year):
            return year, PDF_TEXT
    for line in first_page or []:  # a thesis's "Anno Accademico 2020-2021": the later year
        m = _ACADEMIC_YEAR.search(line)
        year = m and (int(m.group(2)) if len(m.group(2)) == 4 else
                      int(m.group(1)) // 100 * 100 + int(m.group(2)))
        if year and _year_ok(year) and 0 <= year - int(m.group(1)) <= 1:
            return year, PDF_TEXT
    for line in first_page or []:  # "A dissertation submitted ... University of X 2008"
        m = _THESIS.search(line) and re.search(rf"\b(?:in|of|at)\b[^\n]{{0,80}}\b{YEAR}\.?$",
                                               line)
        if m and _year_ok(int(m.group(1))):
            return int(m.group(1)), PDF_TEXT
    year = _first_year(_BUILT, text)
    if year:
        return year, PDF_TEXT
    year = version_note_year(whole or text)  # its note about its published version
    if year:
        return year, PDF_TEXT
    subject = info.get("Subject", "")  # not dvips's stamp "TeX output 2003.10.17:1908",
    # nor LIPIcs's template venue "LIPIcs, Vol.42, CVIT 2016"
    m = (None if re.match(r"\s*TeX output\b", subject) or TEMPLATE_VENUE.search(subject)
         else re.search(rf"\b{YEAR}\b", subject))
    if m and _year_ok(int(m.group(1))):
        return int(m.group(1)), PDF_METADATA
    return None, None
