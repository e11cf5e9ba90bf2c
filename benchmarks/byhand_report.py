"""The report of ``bench_groups.py`` written by hand in plain Polars: the floor a library is held to.

The issue's bare pass (``bench_groups.bare_query``) computes the sums a report needs
and nothing after them. This module computes the *whole* report the same way a
careful Polars user would for these data sets: the same numbers as aggframe (every
measure under micro, macro, weighted and exemplar, convention ``exclude``, one row
per group x measure x operator, in the same order), with none of aggframe's
validation, generality (null labels, targets, folds, soft labels, any dtype) or
kept cell tables. The measures are aggframe's own formulas (``Measure.expr``), so
the difference is the pipeline, not the arithmetic.

Plan, label form: the per-(group, class) margins (#true, #pred, tp) from one
group-by of the (y_true, y_pred) pairs when the universe has at most 32 classes,
else from two group-bys of the rows; per group N and the right count; the class
cells from a join; per measure four sums per group (value, defined, and both
weighted by support); the absent classes as one value of multiplicity m - present;
micro from the pooled cells (right, wrong, wrong, mN - 2N + right); exemplar from
the right and wrong examples. Long form: per (group, class) and per (group,
example) sums, the per-example ones reduced to profiles; then as above.

``python benchmarks/byhand_report.py --check`` compares it with aggframe on every
configuration of ``bench_groups.py`` at 1/100 of the rows (values to 1e-9, same
rows in the same order).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

import polars as pl  # noqa: E402

import aggframe as af  # noqa: E402

OPERATORS = ("micro", "macro", "weighted", "exemplar")
F64 = pl.Float64


def report(
    lf: pl.LazyFrame,
    *,
    form: str,
    keys: Sequence[str],
    m: int,
    measures: Sequence[str],
) -> pl.DataFrame:
    """The report of ``bench_groups.py`` (operators micro/macro/weighted/exemplar, convention exclude)."""
    ms = [af.get_measure(name) for name in measures]
    g = list(keys) or ["__all"]
    if not keys:
        lf = lf.with_columns(pl.lit(0).alias("__all"))
    if form == "labels":
        classes, groups, profiles = _label_tables(lf, g, m)
    else:
        classes, groups, profiles = _long_tables(lf, g, m)
    values = []
    for i, meas in enumerate(ms):
        values.append(meas.expr("tp", "fp", "fn", "tn").alias(f"v{i}"))
    support = (pl.col("tp") + pl.col("fn")).alias("w")
    per_class = classes.with_columns(*values, support)
    terms = []
    for i in range(len(ms)):
        v, w = pl.col(f"v{i}"), pl.col("w")
        terms += [
            v.count().cast(F64).alias(f"cd{i}"),
            v.sum().alias(f"cs{i}"),
            pl.when(v.is_not_null()).then(w).otherwise(0.0).sum().alias(f"wd{i}"),
            (v * w).sum().alias(f"ws{i}"),
        ]
    class_sums = per_class.group_by(g).agg(*terms)
    prof = profiles.with_columns(
        *[meas.expr("tp", "fp", "fn", "tn").alias(f"e{i}") for i, meas in enumerate(ms)]
    )
    n = pl.col("n").cast(F64)
    prof_sums = prof.group_by(g).agg(
        *[
            e
            for i in range(len(ms))
            for e in (
                pl.when(pl.col(f"e{i}").is_not_null()).then(n).otherwise(0.0).sum().alias(f"ed{i}"),
                (pl.col(f"e{i}") * n).sum().alias(f"es{i}"),
            )
        ]
    )
    both = groups.join(class_sums, on=g, how="left", nulls_equal=True).join(
        prof_sums, on=g, how="left", nulls_equal=True
    )
    a = pl.col("absent").cast(F64)
    slots = []
    for i, meas in enumerate(ms):
        micro = meas.expr("tp", "fp", "fn", "tn")
        # the absent classes' one value M(0, 0, 0, N), entering a times (weight 0)
        av = meas.expr("__z", "__z", "__z", "__N")
        cd = pl.col(f"cd{i}").fill_null(0.0) + pl.when(av.is_not_null()).then(a).otherwise(0.0)
        cs = pl.col(f"cs{i}").fill_null(0.0) + (av * a).fill_null(0.0)
        macro = pl.when(cd > 0).then(cs / cd).otherwise(float("nan"))
        wd, ws = pl.col(f"wd{i}").fill_null(0.0), pl.col(f"ws{i}").fill_null(0.0)
        weighted = pl.when(wd > 0).then(ws / wd).when(cd > 0).then(cs / cd).otherwise(float("nan"))
        ed, es = pl.col(f"ed{i}").fill_null(0.0), pl.col(f"es{i}").fill_null(0.0)
        exemplar = pl.when(ed > 0).then(es / ed).otherwise(float("nan"))
        micro_v = pl.when(micro.is_not_null()).then(micro).otherwise(float("nan"))
        slots += [micro_v, macro, weighted, exemplar]
    wide = both.sort(g, nulls_last=True).select(
        *g, pl.concat_arr([s.cast(F64) for s in slots]).alias("value")
    )
    labels = [(meas.name, op) for meas in ms for op in OPERATORS]
    slot = (pl.int_range(pl.len(), dtype=pl.UInt32) % len(labels)).alias("_s")
    out = (
        wide.explode("value")
        .with_columns(slot)
        .select(
            *([] if not keys else list(keys)),
            pl.lit(pl.Series([x[0] for x in labels])).gather(pl.col("_s")).alias("measure"),
            pl.lit(pl.Series([x[1] for x in labels])).gather(pl.col("_s")).alias("operator"),
            "value",
        )
    )
    return out.collect(engine="streaming")


def _label_tables(lf: pl.LazyFrame, g: list[str], m: int) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    zero = pl.lit(0, pl.Int64)
    if m <= 32:
        conf = lf.group_by(*g, "y_true", "y_pred").agg(pl.len().cast(pl.Int64).alias("n")).cache()
        right = pl.col("y_true") == pl.col("y_pred")
        diag = pl.when(right).then(pl.col("n")).otherwise(zero)
        trues = conf.select(
            *g, pl.col("y_true").alias("c"), pl.col("n").alias("t"), diag.alias("p"), diag.alias("tp")
        )
        preds = conf.filter(~right).select(
            *g, pl.col("y_pred").alias("c"), zero.alias("t"), pl.col("n").alias("p"), zero.alias("tp")
        )
        stacked = pl.concat([trues, preds])
    else:
        hit = (pl.col("y_true") == pl.col("y_pred")).cast(pl.Int64)
        trues = lf.group_by(*g, pl.col("y_true").alias("c")).agg(
            pl.len().cast(pl.Int64).alias("t"), hit.sum().alias("tp")
        )
        preds = lf.group_by(*g, pl.col("y_pred").alias("c")).agg(pl.len().cast(pl.Int64).alias("p"))
        stacked = pl.concat(
            [trues.with_columns(zero.alias("p")), preds.with_columns(zero.alias("t"), zero.alias("tp"))],
            how="diagonal",
        )
    margins = stacked.group_by(*g, "c").agg(pl.col("t", "p", "tp").sum()).cache()
    sizes = margins.group_by(g).agg(
        pl.col("t").sum().alias("N"), pl.col("tp").sum().alias("R"), pl.len().alias("present")
    )
    tp, t, p, nn = (pl.col(c).cast(F64) for c in ("tp", "t", "p", "N"))
    classes = margins.join(sizes.select(*g, "N"), on=g, nulls_equal=True).select(
        *g, tp.alias("tp"), (p - tp).alias("fp"), (t - tp).alias("fn"), (nn - t - p + tp).alias("tn")
    )
    sizes = sizes.cache()
    r, n_ex = pl.col("R").cast(F64), pl.col("N").cast(F64)
    groups = sizes.select(
        *g,
        "N",
        (m - pl.col("present")).alias("absent"),
        r.alias("tp"),
        (n_ex - r).alias("fp"),
        (n_ex - r).alias("fn"),
        (m * n_ex - 2 * n_ex + r).alias("tn"),
        pl.lit(0.0).alias("__z"),
        n_ex.alias("__N"),
    )
    right_rows = sizes.select(
        *g,
        pl.lit(1.0).alias("tp"),
        pl.lit(0.0).alias("fp"),
        pl.lit(0.0).alias("fn"),
        pl.lit(m - 1.0).alias("tn"),
        pl.col("R").alias("n"),
    )
    wrong_rows = sizes.select(
        *g,
        pl.lit(0.0).alias("tp"),
        pl.lit(1.0).alias("fp"),
        pl.lit(1.0).alias("fn"),
        pl.lit(m - 2.0).alias("tn"),
        (pl.col("N") - pl.col("R")).alias("n"),
    )
    profiles = pl.concat([right_rows, wrong_rows]).filter(pl.col("n") > 0)
    return classes, groups, profiles


def _long_tables(lf: pl.LazyFrame, g: list[str], m: int) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    y, p = pl.col("y").cast(F64), pl.col("p").cast(F64)
    sums = [
        (y * p).sum().alias("syp"),
        y.sum().alias("sy"),
        p.sum().alias("sp"),
        pl.len().cast(F64).alias("rows"),
    ]
    per_class = lf.group_by(*g, "class").agg(*sums)
    per_example = lf.group_by(*g, "example").agg(*sums)
    syp, sy, sp = (pl.col(c) for c in ("syp", "sy", "sp"))
    profiles = (
        per_example.group_by(*g, "syp", "sy", "sp", "rows")
        .agg(pl.len().alias("n"))
        .select(
            *g,
            syp.alias("tp"),
            (sp - syp).alias("fp"),
            (sy - syp).alias("fn"),
            (m - sy - sp + syp).alias("tn"),
            "n",
        )
        .cache()
    )
    sizes = profiles.group_by(g).agg(pl.col("n").sum().alias("N"))
    classes = (
        per_class.join(sizes, on=g, nulls_equal=True)
        .select(
            *g,
            syp.alias("tp"),
            (sp - syp).alias("fp"),
            (sy - syp).alias("fn"),
            (pl.col("N") - sy - sp + syp).alias("tn"),
        )
        .cache()
    )
    pooled = classes.group_by(g).agg(pl.col("tp", "fp", "fn", "tn").sum(), pl.len().alias("present"))
    n_ex = pl.col("N").cast(F64)
    groups = pooled.join(sizes, on=g, nulls_equal=True).select(
        *g,
        "N",
        (m - pl.col("present")).alias("absent"),
        "tp",
        "fp",
        "fn",
        (pl.col("tn") + (m - pl.col("present")) * n_ex).alias("tn"),
        pl.lit(0.0).alias("__z"),
        n_ex.alias("__N"),
    )
    return classes, groups, profiles


def check() -> int:
    """The by-hand report equals aggframe's on every configuration, at 1/100 of the rows."""
    from bench_groups import CONFIGS, data_path, ensure_data
    from bench_groups import OPERATORS as AF_OPERATORS
    from polars.testing import assert_frame_equal

    for full in CONFIGS:
        cfg = full.quick()
        ensure_data(cfg)
        lf = pl.scan_parquet(data_path(cfg))
        names = cfg.measure_list or af.list_measures()
        keys = ["group"] if cfg.groups else []
        mine = report(lf, form=cfg.form, keys=keys, m=cfg.classes, measures=names)
        if cfg.form == "labels":
            pr = af.from_labels(lf, y_true="y_true", y_pred="y_pred", n_classes=cfg.classes)
        else:
            pr = af.from_long(lf, example="example", class_="class", y="y", p="p", n_classes=cfg.classes)
        theirs = pr.evaluate(names, list(AF_OPERATORS), by=keys or None).select(
            *keys, "measure", "operator", "value"
        )
        assert_frame_equal(mine, theirs, abs_tol=1e-9, rel_tol=1e-9)
        print(f"{cfg.name}: {mine.height} rows equal aggframe's")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare with aggframe on the quick data")
    args = parser.parse_args()
    raise SystemExit(check() if args.check else 0)
