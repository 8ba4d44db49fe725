"""Loads go in batches; with a description, a progress bar on a terminal only."""

from __future__ import annotations

import pytest

from graphstore.store import batches


def test_load_batches_are_the_same_with_a_progress_bar(capsys):
    rows = list(range(12_345))
    assert [list(b) for b in batches(rows, 5000, desc="loading")] == [list(b) for b in batches(rows, 5000)]
    assert [len(b) for b in batches(rows, 5000, desc="loading")] == [5000, 5000, 2345]
    assert capsys.readouterr().err == ""  # no bar when the output is not a terminal (logs, CI)
    with pytest.raises(ValueError):
        list(batches(rows, 0))
