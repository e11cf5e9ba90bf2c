"""Hypothesis strategies shared by the tests: prediction frames, group keys, hostile names.

Every frame here uses *canonical* column names (``y_true``, ``y_pred``, ``example``,
``class``, ``y``, ``p``, ``mask``, ``fold``, ``repeat``, ``target``, by-columns
``k0``, ``k1``, ``k2``); a test that needs other names renames the columns itself
(:func:`rename_columns`), so the canonical evaluation is the oracle of the renamed one.

* :func:`key_columns`: one to three by-columns of mixed dtypes (Int64, String,
  Boolean, Categorical) with a random null pattern (none, some, all).
* :func:`label_frames`: label-form frames (:class:`LabelCase`), optionally with
  example ids, fold/repeat, a target.
* :func:`long_frames`: long-form frames (:class:`LongCase`): dense, sparse with a
  declared universe (``n_classes=`` or ``classes=``), masked, or soft under a t-norm.
* :func:`hostile_names` / :func:`distinct_names`: column names that have broken
  aggframe or could (internal names, result columns, role defaults, quotes, blanks,
  unicode).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from hypothesis import strategies as st

import aggframe as af

__all__ = [
    "CONVENTIONS",
    "HOSTILE_NAMES",
    "INTERNAL_NAMES",
    "KEY_DTYPES",
    "MEASURES",
    "NULL_MODES",
    "OPERATORS",
    "PROPERTY_MEASURES",
    "RESULT_NAMES",
    "ROLE_DEFAULTS",
    "SPECIAL_NAMES",
    "LabelCase",
    "LongCase",
    "distinct_names",
    "group_filter",
    "hostile_names",
    "key_columns",
    "label_frames",
    "long_frames",
    "rename_columns",
]

OPERATORS = ("micro", "macro", "weighted", "exemplar")
CONVENTIONS = ("exclude", "zero", "one", "nan")
#: every registered measure (the oracle and theorem tests, the engine parity)
MEASURES = tuple(af.list_measures())
#: a few measures with different denominators (tp-, tn- and both-dependent), decomposable
#: or not, skew-invariant or not: enough to tell cells apart, cheap enough for the property
#: tests of grouping, names and accumulation (the report's plan grows with the measures:
#: the 21 take ~2.5x the time of these six per evaluation)
PROPERTY_MEASURES = ("precision", "recall", "f1", "specificity", "mcc", "balanced_accuracy")

# ---------------------------------------------------------------------------
# Names

#: Every string aggframe/*.py used as a column name or alias when this list was made
#: (against main at b31ab1b). Collected by an AST scan of aggframe/*.py: the string
#: constants passed to ``alias``, ``col`` (``pl.col``/``nw.col``), ``rename`` (dict keys and
#: values), ``with_row_index``, ``select``, ``group_by``, ``sort``, ``drop``, ``unique``,
#: ``unpivot``, ``join(on=...)``, ``agg``, ``with_columns``, plus the module constants
#: (KEY_ALL, GROUPING_COLUMN, RESULT_COLUMNS, CELLS, CLASS, FOLD_KEY, _GRAIN, _K,
#: _GROUP, _RANK_TRUE, _RANK_PRED, _P_PRIVATE, _SPARK_BITS, _DUCKDB_BITS, POOLINGS,
#: GAP_COLUMNS, DIAGNOSTIC_COLUMNS, STAT), and the f-string names expanded for the
#: roles they are built from (``null_{role}``, ``min_{role}``, ``_v{i}``, ``_bits{w}``,
#: ``_g{i}_{column}``, ``_b_{cell}``, ``__aggframe_{name}__``, ...). Measure and option
#: names that appear only as values are left out; they sit in ROLE_DEFAULTS or
#: RESULT_NAMES where they are column names too. test_names.py rescans the package
#: and fails when a new name is missing here.
INTERNAL_NAMES: tuple[str, ...] = (
    # estimation's small tables and its distribution check (aggframe/decisions/estimate*.py)
    "_G",
    "__af_est_h",  # the exemplar interval's hash of an entry (aggframe/decisions/estimate_exemplar.py)
    "_draw",  # the exemplar interval's draw, per-example codes unpivoted (estimate_exemplar.py, estimate_engines.py)
    "_joint_",
    "_effect",
    "_g0",
    "_gap",
    "_kind",
    "_out",
    # time windows and monitoring (aggframe/decisions/monitor.py, the windowed reports)
    "__af_j",
    "__af_n",
    "__af_est_j",  # estimation over windows (aggframe/decisions/estimate_time.py)
    "__af_est_window",
    "_complete",
    "_j",
    "_mark",
    "_nu",
    "_qhi",
    "_qlo",
    "_sd",
    "_seen",
    # the reserved namespace's stand-ins and helper columns (interop/layout.py, interop/html_tables.py,
    # wide/engines.py, analysis/costs.py), and the former "__aggframe_" spellings, kept as hostile names
    "__af_row",
    "__af_key0",
    "__af_key1",
    "__af_col0",
    "__af_col1",
    "__af_grain",
    "__af_group",
    "__aggframe_all__",
    "__aggframe_fold__",
    "__aggframe_grain__",
    "__aggframe_group__",
    "__aggframe_k__",
    "__aggframe_p__",
    "__aggframe_rank_pred__",
    "__aggframe_rank_true__",
    "__aggframe_class__",
    "__aggframe_y__",
    "__aggframe_example__",
    # stand-ins of the user's key columns while af.wide reshapes (interop/layout.py)
    "__aggframe_key0__",
    "__aggframe_key1__",
    # stand-ins of column names pl.col reads as patterns, in the HTML report's tables (interop/html_tables.py)
    "__aggframe_col0__",
    "__aggframe_col1__",
    # cells and cell-table columns
    "tp",
    "fp",
    "fn",
    "tn",
    "class",
    "n",
    "rows",
    "row",
    "_n",
    "_s",
    "_src",
    # the rows reduction's sums (aggframe/operators/reduce_rows.py)
    "_nd",
    "_wd",
    "_wt",
    "_i",
    "_v",
    "_v0",
    "_v1",
    "_v2",
    "_r",
    "_N",
    "_T",
    "_m",
    "_t",
    "_p",
    "_yt",
    "_yp",
    # merged in round 3: the arg-max passes, the multiclass margins, the bootstrap and scores
    "__aggframe_negated_score__",
    "_cat",
    "_hmax",
    "_pp",
    "_split",
    "_tt",
    # slices (decisions/slices.py): the complements' helper columns
    "_ns",
    "_sn",
    "_stp",
    "_sfp",
    "_sfn",
    "_stn",
    "_sd_comp",
    "_se_boot",
    # the closed form of absent classes and the blocks of report rows (issue #19)
    "__af_part",
    "_repeats",
    "_cn",
    "_cw",
    "_deficit",
    "_en",
    "_folds",
    "_has",
    "_more",
    "_nt",
    "_present",
    "_right",
    "_role",
    "_slot",
    "_z",
    "_kt",
    "_kp",
    "_known",
    "_e",
    "_d",
    "_a",
    "_b",
    "_c",
    "_w",
    "_k",
    "_g",
    "_all",
    "_group",
    "_size",
    "_short",
    "_surplus",
    "_n_targets",
    "_total",
    "_mean",
    "_macro",
    "_undefined",
    "_cost",
    "_in_b",
    "_dup",
    "_syp",
    "_cells",
    "_sy",
    "_sp",
    "_sw",
    "_bits0",
    "_bits1",
    "_sbits0",
    "_sbits1",
    "_dbits0",
    "_dbits1",
    "_g0_tp",
    "_g1_n",
    "_b_tp",
    "_b_fn",
    "_v_y",
    "_v_p",
    "_v_mask",
    "_q_y",
    "_q_p",
    "_q_mask",
    # sufficient sums of the operators
    "n_tot",
    "n_def",
    "sv_n",
    "sv_w",
    "w_tot",
    "w_def",
    # validation aggregates (the wide step's flag of refused values, and what the error
    # path counts on the source)
    "_bad",
    "bad_values",
    "range_y",
    "range_p",
    "range_mask",
    "null_y",
    "null_p",
    "null_mask",
    "null_example",
    "min_y",
    "min_p",
    "min_mask",
    "max_y",
    "max_p",
    "soft_y",
    "soft_p",
    "soft_mask",
    "n_cls",
    "_ncls",
    "n_examples",
    "n_ids",
    "min_rows",
    "max_rows",
    "dup_entries",
    "dup_examples",
    "copies",
    "n_class_rows",
    "n_null_y_true",
    "row_null_y_true",
    "n_unknown_y_pred",
    "min_y_true",
    "max_y_pred",
    "n_rows",
    "n_null",
    "n_nan",
    "n_range",
    "n_dup",
    "_grain",
    "_known",
    # result, confusion-count and comparison columns
    "measure",
    "operator",
    "convention",
    "value",
    "n_entries",
    "n_undefined",
    "pooling",
    "grouping_set",
    "defined",
    "support",
    "true",
    "pred",
    "overall",
    "difference_to_overall",
    "ratio_to_overall",
    "reference",
    "difference_to_reference",
    "ratio_to_reference",
    "group_min",
    "group_max",
    "argmin",
    "argmax",
    "n_groups",
    "difference",
    "ratio",
    "code",
    "severity",
    "message",
    "lower",
    "upper",
    "decomposable",
    "micro",
    "macro",
    "gap",
    "n_defined",
    "mean_denominator",
    "covariance",
    "covariance_gap",
    "note",
    "items",
    "rank",
    "degrees_of_freedom",
    "redundant",
    "volume",
    "flat",
    "coordinate",
    "relation",
    "count",
    "value_b",
    "support_b",
    "a_better",
    "b_better",
    "equal",
    "n_coordinates",
    "target:micro",
    # added with the redesign (the private namespace is __af_*; measures.matrix uses __mx_*)
    "_D",
    "__af_",
    "__af_count",
    "__af_fold_index",
    "__aggframe_row__",
    "__mx_K",
    "__mx_all",
    "__mx_ba",
    "__mx_c",
    "__mx_elin",
    "__mx_lin",
    "__mx_mp",
    "__mx_mt",
    "__mx_olin",
    "__mx_oquad",
    "__mx_p",
    "__mx_rp",
    "__mx_rt",
    "__mx_s",
    "__mx_spp",
    "__mx_stp",
    "__mx_stt",
    "__mx_t",
    "__mx_tp",
    "__mx_vp",
    "__mx_vt",
    "__name__",
    "_dups",
    "_nulls",
    "_rank",
    "_undeclared",
    "__af_by0",
    "__af_y_true",
    "__af_example",
    "__af_all",
    # Polars' null hive partition (intake/partitions.py; a value, listed as the scan finds it)
    "__HIVE_DEFAULT_PARTITION__",
    # adding af.Cells (aggframe/cells.py, aggframe/intake/collected.py)
    "_part",
    "_u",
    # the multiclass operator's and the masked cost's helpers (issue #15)
    "_np",
    "_nt",
    "_obs",
    "_ok",
    "rate",
    "n_classes",
    # the score kernels (operators/score_tables.py, curves.py, calibration.py, score_values.py;
    # wide/ranking.py)
    "_A",
    "_L",
    "_M",
    "_P",
    "_R",
    "__af_curves_all",
    "__af_gid",
    "_ap",
    "_auc2",
    "_base",
    "_bottom",
    "_br",
    "_c_ap",
    "_c_auc2",
    "_gamma",
    "_h",
    "_hi",
    "_ll",
    "_lo",
    "_lrap",
    "_nr",
    "_pn",
    "_pos",
    "_pr",
    "_q",
    "_ranks",
    "_same",
    "_tied",
    "_top",
    "_x",
    "_x0",
    "_x1",
    "_y",
    "_y0",
    "_y1",
    # compare(control=) and the reprs
    "_o",
    "_row",
    # measures on scores (#14): the decisions' and the report's helper columns
    "_cid",
    "_classes",
    "_code",
    "_copies",
    "_hit",
    "_not_one",
    "_npred",
    "_pred",
    "_ranked",
    "_tp",
    # checks' helper columns (decisions/checks.py, interop/html_verdict.py)
    "__af_boot",
    "__af_dhigh",
    "__af_dlow",
    "__af_drop",
    "__af_ext",
    "__af_id",
    "__af_max",
    "__af_max_drop",
    "__af_max_rel",
    "__af_min",
    "__af_min_examples",
    "__af_order",
    "__af_paired",
    "__af_ref",
    "__af_rule",
    "__af_where",
    "__af_gid",
    # the blocks' number of examples (operators/reduce.py EXAMPLES)
    "_nx",
)

#: Columns of the tidy results, per entry point (a by-column with one of these names has
#: no meaning there: the lead's fix refuses it with an OptionError naming it).
RESULT_NAMES: dict[str, tuple[str, ...]] = {
    "evaluate": ("measure", "operator", "convention", "value", "n_entries", "n_undefined", "n_examples"),
    "grouping_sets": ("grouping_set",),
    "folds": ("pooling",),
    "per_class": (
        "class",
        "measure",
        "value",
        "defined",
        "support",
        "tp",
        "fp",
        "fn",
        "tn",
    ),
    "parts_class": ("class", "tp", "fp", "fn", "tn", "support", "value", "defined"),
    "parts_example": ("tp", "fp", "fn", "tn", "value", "defined"),
    "cells_class": ("class", "tp", "fp", "fn", "tn"),
    "cells_pooled": ("tp", "fp", "fn", "tn"),
    "cells_profiles": ("tp", "fp", "fn", "tn", "n"),
    "confusion_counts": ("true", "pred", "n"),
    "compare": (
        "measure",
        "operator",
        "convention",
        "value",
        "n_entries",
        "n_undefined",
        "overall",
        "difference_to_overall",
        "ratio_to_overall",
    ),
    "diagnose": ("scope", "code", "severity", "measure", "operator", "message", "value", "lower", "upper"),
    "micro_macro_gap": (
        "measure",
        "decomposable",
        "micro",
        "macro",
        "gap",
        "n_defined",
        "mean_denominator",
        "covariance",
        "covariance_gap",
        "note",
    ),
    "suite_rank": ("items", "rank", "degrees_of_freedom", "redundant", "volume", "flat"),
}

#: Default role names: a column may carry another role's default (y_true called "y_pred").
ROLE_DEFAULTS = (
    "y_true",
    "y_pred",
    "example",
    "class",
    "y",
    "p",
    "mask",
    "fold",
    "repeat",
    "target",
    "score",
    "k0",
    "k1",
)

#: Names that are hard for anything that builds SQL, CSV, paths or messages (and Polars
#: selectors: ``pl.col("*")`` is every column, ``pl.col("^x$")`` a regular expression).
SPECIAL_NAMES = (
    "",
    " ",
    "  ",
    " a",
    "a b",
    "'",
    '"',
    "`",
    "a'b",
    'a"b',
    "a`b",
    "a,b",
    ",",
    ".",
    "a.b",
    "*",
    "^x$",
    "^.*$",
    "\\",
    "\t",
    "é",
    "ñ ü",
    "名前",
    "🙂",
    "NULL",
    "null",
    "None",
    "0",
    "1",
    "-x",
    "--by",
    "select",
    "group",
    "__aggframe_",
    "__aggframe_x__",
)

HOSTILE_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*SPECIAL_NAMES, *ROLE_DEFAULTS, *INTERNAL_NAMES]))


def hostile_names(pool: Sequence[str] | None = None) -> st.SearchStrategy[str]:
    """One column name: mostly from the hostile list, sometimes arbitrary short text."""
    names = HOSTILE_NAMES if pool is None else tuple(pool)
    free = st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=6)
    return st.one_of(st.sampled_from(names), st.sampled_from(names), free)


def distinct_names(
    n: int,
    *,
    avoid: Sequence[str] = (),
    allowed: Any = None,
    pool: Sequence[str] | None = None,
) -> st.SearchStrategy[list[str]]:
    """``n`` distinct names, none in ``avoid``, each passing ``allowed(name)`` if given."""
    ok = st.SearchStrategy.filter(
        hostile_names(pool), lambda s: s not in avoid and (allowed is None or allowed(s))
    )
    return st.lists(ok, min_size=n, max_size=n, unique=True)


def rename_columns(frame: pl.DataFrame, mapping: dict[str, str]) -> pl.DataFrame:
    """All columns renamed at once (swaps such as y_true <-> y_pred are fine).

    ``DataFrame.rename`` takes names literally (``pl.col("*")`` and ``pl.col("^a$")`` are
    selectors), and unlike building a frame from Series it keeps an empty name.
    """
    return frame.rename({c: mapping[c] for c in frame.columns if c in mapping and mapping[c] != c})


# ---------------------------------------------------------------------------
# Group keys

KEY_DTYPES = ("int", "str", "bool", "cat")
#: how often a key is null: never, in some rows, or in every row
NULL_MODES = ("none", "some", "some", "all")

_DOMAINS: dict[str, tuple[Any, ...]] = {
    "int": (0, 1, 2),
    "str": ("a", "b", ""),
    "bool": (True, False),
    "cat": ("u", "v"),
}
_POLARS_DTYPES = {"int": pl.Int64, "str": pl.String, "bool": pl.Boolean, "cat": pl.Categorical}


@st.composite
def key_columns(
    draw: st.DrawFn,
    n: int,
    *,
    min_keys: int = 1,
    max_keys: int = 3,
    dtypes: Sequence[str] = KEY_DTYPES,
    empty_string: bool = True,
    nulls: bool = True,
) -> dict[str, pl.Series]:
    """``k0 .. k{j-1}``, ``min_keys <= j <= max_keys``, each of ``n`` values with a null pattern.

    A key's null mode (read from :data:`NULL_MODES` at draw time) is ``none``,
    ``some`` (each value null or one of two or three values) or ``all``.
    ``empty_string=False`` keeps ``""`` out of the String keys; ``nulls=False``
    draws no null (for tests about something else).
    """
    j = draw(st.integers(min_keys, max_keys))
    out: dict[str, pl.Series] = {}
    for i in range(j):
        kind = draw(st.sampled_from(list(dtypes)))
        domain = [v for v in _DOMAINS[kind] if empty_string or v != ""]
        mode = draw(st.sampled_from(NULL_MODES)) if nulls else "none"
        if mode == "all":
            values: list[Any] = [None] * n
        elif mode == "none":
            values = draw(st.lists(st.sampled_from(domain), min_size=n, max_size=n))
        else:
            values = draw(st.lists(st.sampled_from([*domain, None]), min_size=n, max_size=n))
        out[f"k{i}"] = pl.Series(f"k{i}", values, dtype=_POLARS_DTYPES[kind])
    return out


def group_filter(keys: Sequence[str], values: Sequence[Any]) -> pl.Expr:
    """Rows of one group, null-aware: ``is_null()`` where the key value is null."""
    parts = [
        pl.col(k).is_null() if v is None else (pl.col(k) == v) & pl.col(k).is_not_null()
        for k, v in zip(keys, values, strict=True)
    ]
    return pl.all_horizontal(parts) if parts else pl.lit(True)


# ---------------------------------------------------------------------------
# Label form


@dataclass(frozen=True)
class LabelCase:
    """A label-form frame with canonical names, and how to read it."""

    frame: pl.DataFrame
    by: list[str]
    classes: list[Any]  # the global universe: sorted distinct labels of y_true and y_pred
    example: str | None = None
    fold: str | None = None
    repeat: str | None = None
    target: str | None = None
    #: with a target: each target's sorted labels (its default universe)
    target_classes: dict[Any, list[Any]] = field(default_factory=dict)

    def roles(self) -> dict[str, Any]:
        """Keyword arguments of ``af.from_labels`` (without a universe)."""
        return {
            "y_true": "y_true",
            "y_pred": "y_pred",
            "example": self.example,
            "fold": self.fold,
            "repeat": self.repeat,
            "target": self.target,
        }

    def universe(self) -> dict[str, Any]:
        """The ``classes=`` that reproduces the default (global) universe on any subset."""
        return {"classes": self.target_classes if self.target else self.classes}


@st.composite
def label_frames(
    draw: st.DrawFn,
    *,
    min_keys: int = 1,
    max_keys: int = 3,
    example: bool | None = None,
    folds: bool = False,
    repeat: bool = False,
    target: bool = False,
    labels: str = "int",
    max_n: int = 30,
    max_m: int = 4,
    empty_string: bool = True,
    nulls: bool = True,
) -> LabelCase:
    """A label-form frame: y_true/y_pred over a few classes, by-keys with random nulls.

    ``example=None`` draws whether there is an example column. With ``target``, every
    example has a row in each of two targets and its keys are the same in both.
    ``labels="str"`` gives string labels.
    """
    m = draw(st.integers(2, max_m))
    n = draw(st.integers(1, max_n))
    pool: list[Any] = list(range(m)) if labels == "int" else [chr(ord("a") + i) for i in range(m)]
    with_example = draw(st.booleans()) if example is None else example
    keys = draw(key_columns(n, min_keys=min_keys, max_keys=max_keys, empty_string=empty_string, nulls=nulls))
    targets = ["t0", "t1"] if target else [None]
    parts = []
    for t in targets:
        yt = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        yp = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        cols: dict[str, Any] = {**keys, "y_true": yt, "y_pred": yp}
        if with_example or target:
            cols["example"] = list(range(n))
        if t is not None:
            cols["target"] = [t] * n
        parts.append(pl.DataFrame(cols))
    frame = pl.concat(parts)
    if folds:
        frame = frame.with_columns(
            pl.Series("fold", draw(st.lists(st.integers(0, 2), min_size=frame.height, max_size=frame.height)))
        )
        if repeat:
            frame = frame.with_columns(
                pl.Series(
                    "repeat",
                    draw(st.lists(st.integers(0, 1), min_size=frame.height, max_size=frame.height)),
                )
            )
    classes = sorted(set(frame["y_true"].to_list()) | set(frame["y_pred"].to_list()))
    per_target = {}
    if target:
        for t in targets:
            sub = frame.filter(pl.col("target") == t)
            per_target[t] = sorted(set(sub["y_true"].to_list()) | set(sub["y_pred"].to_list()))
    return LabelCase(
        frame=frame,
        by=list(keys),
        classes=classes,
        example="example" if (with_example or target) else None,
        fold="fold" if folds else None,
        repeat="repeat" if (folds and repeat) else None,
        target="target" if target else None,
        target_classes=per_target,
    )


# ---------------------------------------------------------------------------
# Long form

LONG_KINDS = ("dense", "sparse", "masked", "soft")
_SOFT = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class LongCase:
    """A long-form frame with canonical names, and how to read it."""

    frame: pl.DataFrame
    by: list[str]
    classes: list[Any]  # the universe: declared, or (undeclared) the sorted classes present
    kind: str  # dense, sparse, masked, soft
    declare: str  # none, n_classes, classes
    tnorm: str | None = None
    fold: str | None = None

    def roles(self) -> dict[str, Any]:
        """Keyword arguments of ``af.from_long`` (with the declared universe, if any)."""
        kw: dict[str, Any] = {"example": "example", "class_": "class", "y": "y", "p": "p"}
        if self.kind == "masked":
            kw["mask"] = "mask"
        if self.tnorm is not None:
            kw["tnorm"] = self.tnorm
        if self.fold is not None:
            kw["fold"] = self.fold
        if self.declare == "n_classes":
            kw["n_classes"] = len(self.classes)
        elif self.declare == "classes":
            kw["classes"] = self.classes
        return kw

    def universe_roles(self) -> dict[str, Any]:
        """As :meth:`roles`, with the universe always declared (for evaluating a subset alone)."""
        kw = self.roles()
        kw.pop("n_classes", None)
        kw["classes"] = self.classes
        return kw


@st.composite
def long_frames(
    draw: st.DrawFn,
    *,
    kinds: Sequence[str] = LONG_KINDS,
    min_keys: int = 1,
    max_keys: int = 3,
    folds: bool = False,
    max_n: int = 12,
    max_m: int = 4,
    empty_string: bool = True,
    nulls: bool = True,
) -> LongCase:
    """A long-form frame: one row per (example, class), by-keys constant within an example.

    ``dense``: every entry present, no declared universe. ``sparse``: some entries
    absent (every example keeps one row), universe declared by ``n_classes`` (classes
    ``0 .. m-1``) or ``classes`` (strings, one of which may never occur). ``masked``:
    dense with a 0/1 mask column. ``soft``: y and p on a grid of [0, 1] under a t-norm.
    """
    kind = draw(st.sampled_from(list(kinds)))
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    declare = "none"
    classes: list[Any] = list(range(m))
    if kind == "sparse":
        declare = draw(st.sampled_from(["n_classes", "classes"]))
        if declare == "classes":
            classes = [f"c{i}" for i in range(m)]
    keys = draw(key_columns(n, min_keys=min_keys, max_keys=max_keys, empty_string=empty_string, nulls=nulls))
    examples = [e for e in range(n) for _ in range(m)]
    cls = [classes[c] for _ in range(n) for c in range(m)]
    values = st.sampled_from(_SOFT) if kind == "soft" else st.sampled_from([0, 1])
    cols: dict[str, Any] = {
        **{k: pl.Series(k, [s[e] for e in examples], dtype=s.dtype) for k, s in keys.items()},
        "example": examples,
        "class": cls,
        "y": draw(st.lists(values, min_size=n * m, max_size=n * m)),
        "p": draw(st.lists(values, min_size=n * m, max_size=n * m)),
    }
    if kind == "masked":
        cols["mask"] = draw(st.lists(st.sampled_from([0, 1]), min_size=n * m, max_size=n * m))
    if folds:
        fold_of = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        cols["fold"] = [fold_of[e] for e in examples]
    frame = pl.DataFrame(cols)
    if kind == "sparse":
        keep = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
        first = [c == 0 for _ in range(n) for c in range(m)]  # every example keeps a row
        frame = frame.filter(pl.Series([k or f for k, f in zip(keep, first, strict=True)]))
        if declare == "classes" and m > 1 and draw(st.booleans()):
            # a declared class that never occurs (every example keeps its first-class row)
            frame = frame.filter(pl.col("class") != classes[-1])
    tnorm = draw(st.sampled_from(["product", "godel", "lukasiewicz"])) if kind == "soft" else None
    if declare == "none":
        classes = sorted(set(frame["class"].to_list()))
    return LongCase(
        frame=frame,
        by=list(keys),
        classes=classes,
        kind=kind,
        declare=declare,
        tnorm=tnorm,
        fold="fold" if folds else None,
    )


# -- small prediction sets in every form (were in conftest.py) --------------------------


@st.composite
def label_arrays(draw: st.DrawFn, max_n: int = 40, max_m: int = 6) -> tuple[np.ndarray, np.ndarray, int]:
    """Single-label (y_true, y_pred, n_classes); some classes may never occur."""
    m = draw(st.integers(2, max_m))
    n = draw(st.integers(1, max_n))
    yt = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    yp = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    return np.array(yt), np.array(yp), m


@st.composite
def indicator_matrices(
    draw: st.DrawFn, *, soft: bool = False, masked: bool = False, max_n: int = 25, max_m: int = 5
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(Y, P, mask) n x m; crisp 0/1 or soft values on a grid of [0, 1]."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    values = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]) if soft else st.sampled_from([0.0, 1.0])
    cells = st.lists(values, min_size=n * m, max_size=n * m)
    Y = np.array(draw(cells)).reshape(n, m)
    P = np.array(draw(cells)).reshape(n, m)
    mask = None
    if masked:
        mask = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n * m, max_size=n * m))).reshape(
            n, m
        )
    return Y, P, mask


def dense_long(Y: np.ndarray, P: np.ndarray, mask: np.ndarray | None = None) -> pl.DataFrame:
    """Every (example, class) entry as a row."""
    n, m = Y.shape
    ex, cl = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    data = {"example": ex.ravel(), "class": cl.ravel(), "y": Y.ravel(), "p": P.ravel()}
    if mask is not None:
        data["mask"] = mask.ravel()
    return pl.DataFrame(data)
