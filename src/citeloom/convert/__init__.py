"""Conversion: a file becomes a DoclingDocument (Docling's pipeline, OCR, the text-health
ladder, the conversion worker process)."""
