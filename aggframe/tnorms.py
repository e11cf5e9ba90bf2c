"""Triangular norms for soft labels, as ``af.tnorms.<name>``: pass one as ``tnorm=`` to
:func:`~aggframe.from_long` (or its name: ``tnorm="product"``).

With soft truth or predictions in ``[0, 1]`` the cells are ``TP = T(y, p)``,
``FP = T(1 - y, p)``, ``FN = T(y, 1 - p)``, ``TN = T(1 - y, 1 - p)``. Only the product
keeps the marginals (:func:`marginal_defect` is 0 for it alone). The functions live in
:mod:`aggframe.wide.tnorms`; these were ``af.product``, ``af.godel``, ... (still working for
this release, with a ``FutureWarning``).

Examples
--------
>>> import aggframe as af
>>> round(af.tnorms.marginal_defect(af.tnorms.product), 12)
0.0
"""

from __future__ import annotations

from aggframe.wide.tnorms import godel, hamacher, lukasiewicz, marginal_defect, product

__all__ = ["godel", "hamacher", "lukasiewicz", "marginal_defect", "product"]
