"""Retrieval evaluation: SciFact, the PDF question sets, the citation check."""
