"""A cover page an archive put before the paper, which names it in items of its own.

JSTOR's cover as its downloads carried it until about 2010 (the later one labels its lines,
"Author(s):" and "Source:", and the title finder reads it):

    Estimating the Return to Schooling: Progress on Some Persistent Econometric Problems
    David Card
    Econometrica, Vol. 69, No. 5. (Sep., 2001), pp. 1127-1160.
    Stable URL: http://links.jstor.org/sici?sici=…

The text layer sets the three on one row, so page 1's largest type runs title, names and
citation together; Docling's items keep them apart. The item before the citation is the
byline (semicolons between names), the items before it the title.
"""

from __future__ import annotations

import re

from citeloom.structure.names import parse_byline

# "Econometrica, Vol. 69, No. 5. (Sep., 2001), pp. 1127-1160." (the issue may be "3/4", the
# pages one page or none; the issue's full stop is the old cover's: the later one's "Source:
# …, Vol. 53, No. 6 (December 2018)" is read by the title finder and the byline as labelled)
_CITATION = re.compile(r"^(?!.*\b(?:Source|Author\(s\)):)[^\W\d_][^\n]{1,150}?, Vol\. \d+, "
                       r"No\. [\w/-]+\. \([^()]{0,30}\b(?:1[6-9]|20)\d\d\)(?:, pp?\. [\d-]+)?"
                       r"\.?(?:\s|$)")


def jstor_cover(items: list[str]) -> tuple[str, list[str]] | None:
    """The title and authors of page 1's items when they are JSTOR's old cover: a title,
    a byline, then the journal's citation with the archive's stable link."""
    for k, item in enumerate(items[:6]):
        if not _CITATION.match(item):
            continue
        after = " ".join(items[k:k + 3])
        if k < 2 or not re.search(r"Stable URL:|links\.jstor\.org", after):
            return None
        names = parse_byline(items[k - 1].replace(";", ","))
        return (" ".join(items[:k - 1]), names) if names else None
    return None
