"""The golden encodings in encodings/ match what the encoders produce."""

from pathlib import Path

import pytest

from ticker_py.encode.golden import golden_texts

ENCODINGS = Path(__file__).resolve().parent.parent / "encodings"
GOLDEN = golden_texts(ENCODINGS)


def test_every_shipped_program_has_goldens():
    programs = sorted(ENCODINGS.glob("*.lars"))
    assert len(programs) >= 8
    assert len(GOLDEN) == 2 * len(programs)


@pytest.mark.parametrize("path", sorted(GOLDEN), ids=lambda p: p.name)
def test_golden_file_is_current(path):
    assert path.exists(), f"missing {path.name}: run python -m ticker_py.encode.golden encodings"
    assert path.read_text() == GOLDEN[path], (
        f"{path.name} is stale: run python -m ticker_py.encode.golden encodings and review the diff"
    )
