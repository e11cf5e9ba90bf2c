"""Measures on scores in the façade: the score report beside the cell measures, curves, calibration, thresholds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

import narwhals as nw
import polars as pl

from aggframe._columns import (
    EXAMPLE,
    by_key,
    check_result_names,
    restore,
)
from aggframe._options import (
    Bootstrap,
    CurveKind,
    Engine,
    Strategy,
    listify,
    parse_convention,
    parse_curve,
    parse_engine,
    parse_operator,
    parse_strategy,
)
from aggframe.exceptions import OptionError
from aggframe.facade.base import PredictionsBase
from aggframe.intake.read_errors import reading, scanning
from aggframe.intake.scores_long import Scored
from aggframe.measures.measure import MeasureLike
from aggframe.measures.registry import get_measure
from aggframe.operators.report import ReportRequest, build_report
from aggframe.operators.score_boot import boot_score_report, check_boot_request, replicate_rows
from aggframe.operators.scores import (
    best_threshold_frame,
    bound_frame,
    calibration_frame,
    check_score_request,
    curve_frame,
    merged_report,
    mixed_score_request,
    regrouped,
    score_grains,
    score_report,
    undefined_rows,
)
from aggframe.tables.cells import CellTables
from aggframe.wide.ranking import ScoreFrame

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np


class ScoreMethods(PredictionsBase):
    """What predictions with scores (:func:`~aggframe.from_scores`) add: read from the scores, not the cells."""

    def _scored(self, what: str) -> Scored:
        """The source's scores, or an error saying where scores come from."""
        if not isinstance(self.source, Scored):
            msg = (
                f"{what} needs predictions that carry scores: build them with from_scores(frame, "
                "score='<column>', ...) (these predictions are in the "
                f"{self.source.form!r} form, without scores)"
            )
            raise OptionError(msg)
        return self.source

    def _score_report(
        self, request: ReportRequest, *, lazy: bool, engine: Engine, boot: Bootstrap | None = None
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """A report with measures on scores: their rows from the scores, merged with the cell measures'.

        One collect reads the source for both: the score grains of every grouping
        set and, when not kept yet, the cell tables (``lazy=True``: one plan).
        With ``boot`` the report has the replicate key ``REP`` (the cell measures'
        from :meth:`boot_tables`, the scores' from :mod:`aggframe.operators.score_boot`:
        the same weights).
        """
        source = self._scored("measures on scores (" + ", ".join(request.scores) + ")")
        if self.source.fold_keys() or self.source.target is not None or request.classes is not None:
            msg = "measures on scores take by= and grouping_sets=, not folds, targets or classes="
            raise OptionError(msg)
        score_ops = list(request.operators)
        # multiclass beside other operators: the measures on scores it lacks are listed, not refused
        mixed = mixed_score_request(request.scores, score_ops, whole_matrix=bool(request.matrix_measures))
        check_score_request(request.scores, [o for o in score_ops if not (mixed and o == "multiclass")])
        probabilities = [m for m in request.scores if m in ("log_loss", "brier", "ece")]
        if probabilities:
            source.check_probabilities(", ".join(probabilities))
        sets = request.grouping_sets
        frames = (
            [(None, source.score_frame(request.by))]
            if sets is None
            else [(keep, regrouped(source.score_frame(keep), keep, request.by)) for keep in sets]
        )
        if boot is not None:
            check_boot_request(request.scores, score_ops, frames[0][1], cluster=boot.cluster)
        # the operators of the measures on scores (multiclass: the losses only)
        losses = {"log_loss", "brier"} & set(request.scores)
        own_ops = [o for o in score_ops if o != "multiclass" or losses or not mixed]
        with reading(self.source.origin):  # another engine's score grains are collected here
            grains = [score_grains(sf, request.scores, own_ops) for _, sf in frames]
        # the cell measures' operators (multiclass: the whole-matrix measures, or its listed pairs)
        listed = any(op == "multiclass" for _, op in request.undefined)
        cell_ops = tuple(o for o in score_ops if o != "multiclass" or request.matrix_measures or listed)
        cell_request = replace(request, operators=cell_ops, scores=())
        tables, grains = self._score_cell_tables(request, grains, lazy=lazy, engine=engine, boot=boot)
        parts = [(keep, sf, g) for (keep, sf), g in zip(frames, grains, strict=True)]
        scores = score_report(
            parts,
            by=request.by,
            measures=request.scores,
            operators=own_ops,
            conventions=request.conventions,
        )
        if boot is not None:
            with reading(self.source.origin):  # another engine's rows cross to Polars here
                rows = [(keep, sf, self._replicate_rows(sf, boot)) for keep, sf in frames]
            scores = boot_score_report(
                scores,
                rows,
                by=request.by,
                boot=boot,
                measures=request.scores,
                operators=own_ops,
                conventions=request.conventions,
            )
        if mixed:
            scores = pl.concat([scores, undefined_rows(scores, request.scores, request.conventions)])
        cells = None
        if tables is not None:
            cells = build_report(tables, cell_request, folds=[], class_dtype=None)
        out = merged_report(
            cells,
            scores,
            by=request.by,
            order=request.names(),
            operators=score_ops,
            conventions=request.conventions,
            sets=sets,
        )
        return out, {by_key(i): c for i, c in enumerate(request.by)}

    def _score_cell_tables(
        self,
        request: ReportRequest,
        grains: list[dict[str, pl.LazyFrame]],
        *,
        lazy: bool,
        engine: Engine,
        boot: Bootstrap | None,
    ) -> tuple[CellTables | None, list[dict[str, pl.LazyFrame]]]:
        """The cell tables of the cell measures beside the scores (None without any), and the score
        grains, collected with them in one collect unless ``lazy``."""
        if not (request.measures or request.matrix_measures):
            return None, grains if lazy else self._collect_grains(grains, engine=engine)
        if boot is not None:
            tables = self._boot_tables(request.by, boot, engine=engine, lazy=lazy)
            if not lazy:
                grains = self._collect_grains(grains, engine=engine)
        elif lazy:
            tables = self._source_tables(request.by, pairs=request.needs_pairs)
        else:
            tables, grains = self._collect_with(request.by, grains, engine=engine, pairs=request.needs_pairs)
        if request.needs_pairs:
            tables = self._with_pairs(tables, request.by, lazy=lazy, what="the weighted kappas")
        elif request.matrix_measures:
            self._check_single_label("the multiclass operator", request.by)
        return tables, grains

    def _replicate_rows(self, sf: ScoreFrame, boot: Bootstrap) -> pl.LazyFrame:
        """The score rows with their replicate weights (:func:`~aggframe.operators.score_boot.replicate_rows`)."""
        unit_sf, unit, what = self._boot_unit(sf)
        return replicate_rows(unit_sf, unit, boot, what=what)

    def _boot_unit(self, sf: ScoreFrame) -> tuple[ScoreFrame, str, str]:
        """The score frame with its bootstrap unit column, that column and its user name (for errors).

        The unit is the example, as in the cell bootstrap; the binary layout has no
        example ids, so a row is an example and its position its id (as the label
        form numbers its rows: the same weights).
        """
        if sf.example is not None:
            return sf, sf.example, sf.names.get(sf.example, "example")
        native = nw.to_native(sf.frame)
        if not isinstance(native, pl.LazyFrame):
            msg = (
                "a bootstrap of scores without example ids numbers the rows, which only Polars keeps in "
                "order; use the long layout with example ids (they also pair the examples of several models)"
            )
            raise OptionError(msg)
        numbered = native.with_row_index(EXAMPLE).with_columns(pl.col(EXAMPLE).cast(pl.Int64))
        return replace(sf, frame=nw.from_native(numbered), example=EXAMPLE), EXAMPLE, "row"

    def _collect_grains(
        self, grains: list[dict[str, pl.LazyFrame]], *, engine: Engine
    ) -> list[dict[str, pl.LazyFrame]]:
        _, collected = self._collect_with(None, grains, engine=engine)
        return collected

    def _collect_with(
        self,
        by: Sequence[str] | None,
        grains: list[dict[str, pl.LazyFrame]],
        *,
        engine: Engine,
        pairs: bool = False,
    ) -> tuple[CellTables, list[dict[str, pl.LazyFrame]]]:
        """The score grains collected in one collect with the cell tables of ``by`` (kept, as :meth:`cell_tables`)."""
        flat = [(i, name, lf) for i, g in enumerate(grains) for name, lf in g.items()]
        frames = [lf for _, _, lf in flat]
        by_cols = tuple(listify(by)) if by is not None else None
        if by_cols is not None and by_cols not in self._cache:
            got = self._collect_tables(by_cols, frames, engine=engine, pairs=pairs)
        else:
            with scanning(self.source.origin):
                got = pl.collect_all(frames, engine=engine)
        collected: list[dict[str, pl.LazyFrame]] = [{} for _ in grains]
        for (i, name, _), frame in zip(flat, got, strict=True):
            collected[i][name] = frame.lazy()
        kept = self._cache[by_cols] if by_cols is not None else CellTables(pl.LazyFrame(), pl.LazyFrame(), ())
        return kept, collected

    def curve(
        self,
        kind: CurveKind = "roc",
        operator: str | None = None,
        *,
        by: str | Sequence[str] | None = None,
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The ROC or precision-recall curve per group, as a tidy frame.

        Parameters
        ----------
        kind
            ``"roc"`` (columns ``fpr``, ``tpr``) or ``"pr"`` (``precision``, ``recall``).
        operator
            ``None``: one curve per class (one-vs-rest), with a ``class`` column;
            ``"micro"``: the curve of the pooled (flattened) entries; ``"macro"``:
            the classes' curves averaged. A macro ROC curve interpolates every
            class's tpr linearly at the union of all classes' fpr values (as
            ``np.interp`` in scikit-learn's ROC example; at a vertical step, its
            top) and averages over the classes with positives and negatives. A
            macro PR curve reads every class's precision as average precision
            does (at recall ``r``, the precision of the highest threshold
            reaching ``r``) at the union of the recall values, averaged over the
            classes with positives, so that its step area is the macro AP. Both
            have ``n_classes`` (the classes averaged) and no threshold.
        by
            Group columns: one curve per group (a null key is a group).
        engine
            Polars engine for the collect, as in :meth:`evaluate`.

        Returns
        -------
        polars.DataFrame
            by..., [class], threshold, fpr, tpr (or precision, recall), in
            descending threshold order. Per class and micro, the points are
            scikit-learn's: ``roc_curve(drop_intermediate=False)`` (first row at
            threshold ``inf``, (0, 0)) and ``precision_recall_curve`` (its last
            point, precision 1 and recall 0, is the row of threshold ``inf``); a
            prediction is positive when ``score >= threshold``; thresholds are in
            the scores' units (with ``logits=True``, logits). An undefined rate
            is null: fpr without negatives and tpr without positives (where
            scikit-learn has NaN), and recall without positives (where
            scikit-learn's ``precision_recall_curve`` has 1, and 0 at its last
            point). With ``bins=N`` the points are the exact curve's at the
            thresholds ``q/N`` (``bins`` quantises probabilities: with logits,
            their sigmoid).

        Raises
        ------
        OptionError
            Predictions without scores (not from :func:`~aggframe.from_scores`), an unknown
            option value, or scores outside [0, 1] where a probability is read.

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"example": [0, 0, 1, 1, 2, 2], "class": [0, 1] * 3,
        ...                    "score": [0.8, 0.2, 0.4, 0.6, 0.3, 0.7], "y": [1, 0, 0, 1, 1, 0]})
        >>> af.from_scores(df, decision="argmax").curve("roc", "micro")
        shape: (7, 3)
        ┌───────────┬──────────┬──────────┐
        │ threshold ┆ fpr      ┆ tpr      │
        │ ---       ┆ ---      ┆ ---      │
        │ f64       ┆ f64      ┆ f64      │
        ╞═══════════╪══════════╪══════════╡
        │ inf       ┆ 0.0      ┆ 0.0      │
        │ 0.8       ┆ 0.0      ┆ 0.333333 │
        │ 0.7       ┆ 0.333333 ┆ 0.333333 │
        │ 0.6       ┆ 0.333333 ┆ 0.666667 │
        │ 0.4       ┆ 0.666667 ┆ 0.666667 │
        │ 0.3       ┆ 0.666667 ┆ 1.0      │
        │ 0.2       ┆ 1.0      ┆ 1.0      │
        └───────────┴──────────┴──────────┘
        """
        engine = parse_engine(engine)
        source = self._scored("curve()")
        chosen = parse_curve(kind)
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro", "macro"):
            msg = f"curve() takes operator=None (per class), 'micro' or 'macro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = curve_frame(sf, chosen, op).collect(engine=engine)
        return self._restored(out, sf, "curve")

    def calibration(
        self,
        bins: int = 15,
        strategy: Strategy = "uniform",
        *,
        operator: str | None = None,
        by: str | Sequence[str] | None = None,
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The reliability table per group (and class), as ``sklearn.calibration.calibration_curve``.

        Parameters
        ----------
        bins, strategy
            scikit-learn's ``n_bins`` and ``strategy``: ``"uniform"`` (edges
            ``np.linspace(0, 1, bins + 1)``) or ``"quantile"`` (edges at the
            scores' percentiles, NumPy's linear interpolation, bit for bit).
        operator
            ``None``: one table per class (the one-vs-rest column); ``"micro"``:
            the pooled entries.
        by
            Group columns.
        engine
            Polars engine for the collect, as in :meth:`evaluate`.

        Returns
        -------
        polars.DataFrame
            by..., [class], bin, lower, upper, mean_score (``prob_pred``),
            frequency (``prob_true``), count; empty bins are left out. The
            expected calibration error is ``sum(count * |frequency - mean_score|)
            / sum(count)`` (the ``ece`` measure, with 15 uniform bins). With
            ``from_scores(bins=N)``, a quantisation cell goes to the calibration
            bin of its mean score (exact when every calibration edge is a cell
            edge, e.g. uniform calibration bins whose count divides ``N``).

        Raises
        ------
        OptionError
            Predictions without scores (not from :func:`~aggframe.from_scores`), an unknown
            option value, or scores outside [0, 1] where a probability is read.

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.35, 0.8, 0.9], "y": [0, 0, 1, 1, 1]})
        >>> af.from_scores(df, class_=None).calibration(bins=2).drop("class")
        shape: (2, 6)
        ┌─────┬───────┬───────┬────────────┬───────────┬───────┐
        │ bin ┆ lower ┆ upper ┆ mean_score ┆ frequency ┆ count │
        │ --- ┆ ---   ┆ ---   ┆ ---        ┆ ---       ┆ ---   │
        │ i64 ┆ f64   ┆ f64   ┆ f64        ┆ f64       ┆ i64   │
        ╞═════╪═══════╪═══════╪════════════╪═══════════╪═══════╡
        │ 0   ┆ 0.0   ┆ 0.5   ┆ 0.25       ┆ 0.333333  ┆ 3     │
        │ 1   ┆ 0.5   ┆ 1.0   ┆ 0.85       ┆ 1.0       ┆ 2     │
        └─────┴───────┴───────┴────────────┴───────────┴───────┘
        """
        engine = parse_engine(engine)
        source = self._scored("calibration()")
        source.check_probabilities("calibration()")
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            msg = f"Expected `bins` to be a positive integer, got {bins!r}"
            raise OptionError(msg)
        how = parse_strategy(strategy)
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro"):
            msg = f"calibration() takes operator=None (per class) or 'micro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = calibration_frame(sf, bins=int(bins), strategy=how, operator=op).collect(engine=engine)
        return self._restored(out, sf, "calibration")

    def best_threshold(
        self,
        measure: MeasureLike,
        operator: str | None = None,
        *,
        by: str | Sequence[str] | None = None,
        per_class: bool = False,
        convention: str = "exclude",
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The score threshold that maximises a measure, and the measure's value there.

        The candidates are every distinct score and ``inf`` (nothing predicted);
        a prediction is positive when ``score >= threshold``. Thresholds are in
        the scores' units, as the curves' are: with ``logits=True`` a logit (the
        ``threshold=`` of :func:`~aggframe.from_scores` is a probability: pass
        its sigmoid), and scores outside [0, 1] without logits give thresholds
        there too. The cells at every
        threshold are the cumulative sums of the ROC curve, so this is one more
        small aggregation over the per-score table.

        Parameters
        ----------
        measure
            Any registered measure of the four cells (name, alias or
            :class:`Measure`).
        operator
            ``"micro"`` (default): one threshold for the pooled entries;
            ``"macro"`` / ``"weighted"``: one threshold for all classes,
            maximising the (support-weighted) mean of the per-class values, with
            undefined class values resolved by ``convention``.
        by
            Group columns: one threshold per group.
        per_class
            One threshold per class instead, each maximising its class's value
            (no ``operator`` then).
        convention
            For ``macro`` / ``weighted``: ``exclude``, ``zero``, ``one`` or ``nan``.
        engine
            Polars engine for the collect, as in :meth:`evaluate`.

        Returns
        -------
        polars.DataFrame
            by..., [class], threshold, value, and for micro and per class the
            cells there (tp, fp, fn, tn). Undefined values are never chosen;
            when several thresholds reach the maximum the **largest** wins (the
            fewest positive predictions); a group where the measure is undefined
            everywhere gets nulls. ``from_scores(decision="threshold")`` predicts
            ``score > threshold``: pass a value just below this one (the next
            lower score, or any value between) to reproduce the decisions.

        Raises
        ------
        OptionError
            Predictions without scores (not from :func:`~aggframe.from_scores`), an unknown
            option value, or scores outside [0, 1] where a probability is read.

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"score": [0.2, 0.7, 0.4, 0.9], "y": [1, 1, 0, 1]})
        >>> af.from_scores(df, class_=None).best_threshold("f1").select("threshold", "value")
        shape: (1, 2)
        ┌───────────┬──────────┐
        │ threshold ┆ value    │
        │ ---       ┆ ---      │
        │ f64       ┆ f64      │
        ╞═══════════╪══════════╡
        │ 0.2       ┆ 0.857143 │
        └───────────┴──────────┘
        """
        engine = parse_engine(engine)
        source = self._scored("best_threshold()")
        meas = get_measure(measure)
        conv = parse_convention(convention)
        if per_class and operator is not None:
            msg = "per_class=True picks one threshold per class; operator= does not apply"
            raise OptionError(msg)
        op = "micro" if operator is None else parse_operator(operator)
        if op == "exemplar":
            msg = "best_threshold() takes operator 'micro', 'macro' or 'weighted' (a threshold is per entry)"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):  # another engine's counts are collected in the first line
            frame = best_threshold_frame(sf, meas, operator=op, per_class=per_class, convention=conv)
            out = frame.collect(engine=engine)
        return self._restored(out, sf, "best_threshold")

    def auroc_bound(
        self, operator: str | None = None, *, by: str | Sequence[str] | None = None, engine: Engine = "auto"
    ) -> pl.DataFrame:
        """The bound on the AUROC error of ``from_scores(bins=N)``, per group (and class).

        Quantisation changes only pairs of a positive and a negative entry in
        one cell (their 1, 0 or 1/2 becomes 1/2), so ``|AUROC_binned - AUROC| <=
        sum_q pos_q neg_q / (2 P N)``, computed from the binned table itself.
        Exact predictions (no ``bins``) give 0. ``operator``: ``None`` (per
        class, the macro entries) or ``"micro"`` (the pooled entries).

        Returns
        -------
        polars.DataFrame
            by..., [class], bound (null where the AUROC is undefined).

        Parameters
        ----------
        operator
            ``None`` (per class), ``"micro"``, ``"macro"`` or ``"weighted"``.
        by
            Group columns.
        engine
            ``"auto"``, ``"streaming"`` or ``"in-memory"``.

        Raises
        ------
        OptionError
            Predictions without ``bins=`` scores, or an unknown operator.
        """
        engine = parse_engine(engine)
        source = self._scored("auroc_bound()")
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro"):
            msg = f"auroc_bound() takes operator=None (per class) or 'micro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = bound_frame(sf, operator=op).collect(engine=engine)
        if sf.bins is None:
            out = out.with_columns(pl.when(pl.col("bound").is_not_null()).then(0.0).alias("bound"))
        return self._restored(out, sf, "auroc_bound")

    def _restored(self, out: pl.DataFrame, sf: ScoreFrame, what: str) -> pl.DataFrame:
        names = {k: sf.names[k] for k in sf.row_keys}
        check_result_names(names.values(), [c for c in out.columns if c not in names], what)
        return cast("pl.DataFrame", restore(out, names))
