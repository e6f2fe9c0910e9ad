"""Fixtures shared by the whole test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder beside the checkout (rule texts, photos); skips the test when absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not here (rule texts and photos live outside the repository)")
    return SHARED


@pytest.fixture(scope="session")
def seeds_dir(shared_dir: Path) -> Path:
    """The rule texts (004_* official rules and variations, 000_* Israeli scoring)."""
    path = shared_dir / "seeds"
    if not path.is_dir():
        pytest.skip(f"{path} is not here")
    return path
