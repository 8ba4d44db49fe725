"""One variant written in the ways papers and clinicians write it gives the same keys."""

from __future__ import annotations

import pytest

from fpkg.variant_keys import variant_keys


@pytest.mark.parametrize("written, keys", [
    ("c.758C>G; p.Pro253Arg in exon 7", {"c.758C>G", "p.P253R"}),
    ("p.(P253R)", {"p.P253R"}),
    ("c.758 C > G", {"c.758C>G"}),
    ("c.1580G > A; p.(Arg527His)", {"c.1580G>A", "p.R527H"}),
    ("c. 2443-2A > G", {"c.2443-2A>G"}),
    ("c.495+2dup", {"c.495+2dup"}),
    ("c.1234_1236delAAG", {"c.1234_1236del"}),
    ("c.6274C>T; p.Gln2092* in Exon 20", {"c.6274C>T", "p.Q2092*"}),
    ("p.Gln2092X", {"p.Q2092*"}),
    ("ARG12TER", {"p.R12*"}),
    ("Ser252Trp", {"p.S252W"}),
    ("p.Arg123Glyfs*12", {"p.R123fs"}),
    ("p.R123Gfs*12", {"p.R123fs"}),
])
def test_keys_of_written_variants(written, keys):
    assert variant_keys(written) == keys


@pytest.mark.parametrize("written", [
    "", None, "MTHFR C677T",  # a bare one-letter change may be an old nucleotide name
    "a heterozygous deletion of exons 3-5", "Cys", "p.Ser", "Chr7 duplication",
])
def test_no_keys_where_no_change_is_written(written):
    assert variant_keys(written) == frozenset()
