"""The duplicate check's bit words on Polars, and the flag of refused values they carry.

The long form's per-example aggregation bounds each example's distinct classes by
the one-bits of a sum of ``2^(c mod b)`` (``aggframe.wide.engines.distinct_classes``):
one UInt64 word up to 64 declared classes, UInt128 words above. A row flagged for
a refused value sets no bit (``DistinctCheck.fold``), so the check's shortfall
stands for the flag too and the validation recounts both exactly on the source.
"""

from __future__ import annotations

from typing import Any

import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import DuplicateEntryError, InvalidValueError, NullValueError, UnknownClassError
from aggframe.wide.engines import distinct_classes
from aggframe.wide.long import BAD_VALUES, LongRoles, long_grains

#: declared class counts on each side of the word sizes (64, 128, 512 bits)
COUNTS = [3, 64, 65, 100, 128, 129, 300, 512]


def _n_cls(frame: pl.DataFrame, n_classes: int | None, flag: str | None = None) -> dict[int, int]:
    """``n_cls`` per example from the bit words (folded with the Boolean column ``flag``)."""
    check = distinct_classes(nw.from_native(frame.lazy()), "class", n_classes)
    lf = nw.from_native(frame.lazy())
    assert check.fold is not None
    rows = check.fold(lf, ~pl.col(flag), [flag]) if flag is not None else check.rows(lf)
    out = check.finish(rows.group_by("example").agg(*check.aggs))
    got = nw.to_native(out).collect()
    return dict(zip(got["example"].to_list(), got["n_cls"].to_list(), strict=True))


@pytest.mark.parametrize(
    ("n_classes", "dtype", "words"), [(64, pl.UInt64, 1), (100, pl.UInt128, 1), (300, pl.UInt128, 3)]
)
def test_words_are_as_wide_as_the_declared_classes(n_classes: int, dtype: Any, words: int) -> None:
    frame = pl.LazyFrame({"example": [0], "class": [1]})
    check = distinct_classes(nw.from_native(frame), "class", n_classes)
    schema = nw.to_native(check.rows(nw.from_native(frame))).collect_schema()
    assert [schema[c] for c in check.columns] == [dtype] * words


@settings(max_examples=25, deadline=None)
@given(
    n_classes=st.sampled_from(COUNTS),
    dtype=st.sampled_from([pl.Int16, pl.Int64, pl.UInt16]),
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 511), st.booleans()), min_size=1, max_size=40),
)
def test_bit_words_fall_short_exactly_when_an_entry_repeats_or_is_flagged(
    n_classes: int, dtype: Any, rows: list[tuple[int, int, bool]]
) -> None:
    # within a declared universe (classes 0 .. n_classes - 1): n_cls is the row count when the
    # example's classes are distinct (and, folded, none of its rows is flagged), and falls
    # short of it otherwise (a sum of k powers of two with a repeat has fewer than k one-bits)
    frame = pl.DataFrame(
        {
            "example": [e for e, _, _ in rows],
            "class": [c % n_classes for _, c, _ in rows],
            "_flag": [f for _, _, f in rows],
        },
        schema_overrides={"class": dtype},
    )
    per_example = frame.group_by("example").agg(
        pl.len().alias("rows"),
        (pl.len() - pl.col("class").n_unique()).alias("repeats"),
        pl.col("_flag").any(),
    )
    plain, folded = _n_cls(frame.drop("_flag"), n_classes), _n_cls(frame, n_classes, "_flag")
    for example, n_rows, repeats, flagged in per_example.iter_rows():
        assert plain[example] <= n_rows
        assert (plain[example] == n_rows) == (repeats == 0)
        assert folded[example] <= n_rows
        assert (folded[example] == n_rows) == (repeats == 0 and not flagged)


def test_bit_words_of_an_undeclared_universe_share_bits_128_apart() -> None:
    # classes 128 apart share a bit: a shortfall that the validation's exact recount clears
    frame = pl.DataFrame({"example": [0, 0, 1, 1, 1, 2, 2], "class": [5, 133, 5, -123, 7, 0, 127]})
    assert _n_cls(frame, None) == {0: 1, 1: 2, 2: 2}
    dense = pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [5, 133, 133, 5], "y": [1, 0, 0, 1], "p": [1, 0, 0, 1]}
    )
    assert af.from_long(dense).evaluate("f1", "micro")["value"][0] == 1.0


def _groups(frame: pl.DataFrame, n_classes: int) -> dict[str, int]:
    roles = LongRoles()
    got = long_grains(
        nw.from_native(frame.lazy()),
        roles,
        [],
        tnorm=None,
        n_classes=n_classes,
        universe=list(range(n_classes)),
    )
    groups = nw.to_native(got["groups"]).collect()
    return {c: int(groups[c].sum()) for c in ("dup_entries", BAD_VALUES, "n_examples")}


def _clean(n_examples: int = 3, m: int = 100) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "example": [e for e in range(n_examples) for _ in range(m)],
            "class": [c for _ in range(n_examples) for c in range(m)],
            "y": [int(c == e) for e in range(n_examples) for c in range(m)],
            "p": [int(c == (e + e % 2)) for e in range(n_examples) for c in range(m)],
        },
        schema={"example": pl.Int64, "class": pl.Int8, "y": pl.Int8, "p": pl.Int8},
    )


def test_groups_count_suspect_rows_for_both_checks_when_folded() -> None:
    clean = _clean()
    assert _groups(clean, 100) == {"dup_entries": 0, BAD_VALUES: 0, "n_examples": 3}
    # one refused value (example 0) and one repeated entry (example 2): both counts are the
    # suspicion (a repeat can cost several one-bits), which the validation recounts exactly
    broken = pl.concat(
        [
            clean.with_columns(pl.when(pl.int_range(300) == 7).then(2).otherwise("y").alias("y")),
            clean[250:251],
        ]
    )
    got = _groups(broken, 100)
    assert got["dup_entries"] == got[BAD_VALUES] > 1
    assert _groups(broken[1:], 100)["dup_entries"] >= 1  # the refused value alone


@pytest.mark.parametrize("how", ["eager", "lazy", "streaming"])
def test_folded_checks_raise_the_errors_they_raised(how: str) -> None:
    # integer classes take the folded bit words; each error is still the one of its check,
    # in the checks' order, with the exact count recounted on the source
    clean = _clean()

    def run(frame: pl.DataFrame) -> None:
        source = frame if how == "eager" else frame.lazy()
        af.from_long(source, n_classes=100).evaluate(
            "f1", "micro", engine="streaming" if how == "streaming" else "auto"
        )

    at = pl.int_range(pl.len())
    refused = clean.with_columns(pl.when(at.is_in([3, 150])).then(2).otherwise("y").alias("y"))
    with pytest.raises(InvalidValueError, match=r"column 'y': 2 value\(s\) outside \[0, 1\]"):
        run(refused)
    negative = clean.with_columns(pl.when(at == 5).then(-1).otherwise("p").alias("p"))
    with pytest.raises(InvalidValueError, match=r"column 'p': 1 value\(s\) outside \[0, 1\]"):
        run(negative)
    # a duplicate in another example than the refused values: the duplicate is reported first
    with pytest.raises(
        DuplicateEntryError, match=r"\b2 duplicate entr.*e\.g\. example=2, class=50, copies=3"
    ):
        run(pl.concat([refused, clean[250:251], clean[250:251]]))
    outside = clean.with_columns(pl.when(at == 9).then(120).otherwise("class").alias("class"))
    with pytest.raises(UnknownClassError, match=r"\b1 row\(s\) with a class outside.*e\.g\. 120"):
        run(outside)
    with pytest.raises(NullValueError, match=r"column 'example': 1 null"):
        run(clean.with_columns(pl.when(at == 0).then(None).otherwise("example").alias("example")))
    run(clean)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    p_dtype=st.sampled_from([pl.Int8, pl.Int64, pl.UInt8]),
    m=st.sampled_from([5, 64, 70]),
)
def test_folded_packed_results_equal_the_distinct_count_path(seed: int, p_dtype: Any, m: int) -> None:
    # Integer roles and classes take the folded bit words and the packed cell sums; the same
    # data with string classes takes an exact distinct count, a separate flag and three sums.
    # Sparse examples (absent entries: true negatives), a by key with a null group.
    rng = np.random.default_rng(seed)
    frame = _clean(8, m).with_columns(
        pl.Series("y", rng.integers(0, 2, 8 * m), dtype=pl.Int8),
        pl.Series("p", rng.integers(0, 2, 8 * m)).cast(p_dtype),
        pl.Series("model", rng.choice(["a", "b", ""], 8 * m)).replace("", None),
    )
    frame = frame.filter(pl.Series(rng.random(8 * m) < 0.8))
    folded = af.from_long(frame, n_classes=m).evaluate(by="model", engine="streaming")
    strings = frame.with_columns(pl.col("class").cast(pl.String))
    counted = af.from_long(strings, classes=[str(c) for c in range(m)]).evaluate(
        by="model", engine="streaming"
    )
    # the same values up to the order of parallel float sums (a last-place difference)
    keys = ["model", "measure", "operator", "convention"]
    assert_frame_equal(folded.sort(keys, nulls_last=True), counted.sort(keys, nulls_last=True), rel_tol=1e-12)


def test_folded_results_equal_the_distinct_count_path() -> None:
    # the same data with string classes takes an exact distinct count and a separate flag
    frame = _clean(6, 70)
    folded = af.from_long(frame, n_classes=70).evaluate(engine="streaming")
    strings = frame.with_columns(pl.col("class").cast(pl.String))
    counted = af.from_long(strings, classes=[str(c) for c in range(70)]).evaluate(engine="streaming")
    assert folded.equals(counted)
