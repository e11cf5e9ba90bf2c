"""Operators: the reduction, folds, targets, grouping sets, class subsets, multiclass, scores, bootstrap, compare."""
