"""The structure pass: headings and their levels, clean text, titles, the paper's own metadata
and citekeys."""
