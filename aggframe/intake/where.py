"""Row filters written as SQL boolean expressions: ``"model = 'a' AND day >= '2024-01-02'"``.

One small language for every caller (the command line's ``--where``, the ``where``
of check rules), one parser, one compiler, so the grammar and its errors are the
same everywhere:

- comparisons ``= == != <> < <= > >=``, ``IN (...)``, ``NOT IN (...)``,
  ``BETWEEN a AND b``, ``IS [NOT] NULL``, ``AND``, ``OR``, ``NOT``, parentheses;
- columns bare (``model``) or in double quotes (``"my col"``, ``""`` for a quote);
  text in single quotes (``'it''s'``), numbers, ``TRUE``/``FALSE``;
- a quoted ISO date compared with a date or datetime column is read as one
  (``day >= '2024-01-02'``, as hive partitions are typed).

As in SQL, a comparison with a null is not true: a row is kept only where the
expression is true. The tree compiles to a Narwhals expression (every engine:
Polars, DuckDB, Spark; :func:`where_expression`) or to a Polars one (the command
line's lazy scan; :func:`parse_where`). Arithmetic, functions and ``LIKE`` are not
part of the language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, cast

import narwhals.stable.v1 as nw
import polars as pl

from aggframe.exceptions import ColumnNotFoundError, OptionError

__all__ = ["Node", "parse_where", "where_columns", "where_expression", "where_tree"]

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<num>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")+")
  | (?P<op><=|>=|<>|!=|==|=|<|>|\(|\)|,)
  | (?P<word>[^\W\d]\w*)
    )""",
    re.VERBOSE | re.UNICODE,
)
_WORDS = {"and", "or", "not", "in", "is", "null", "true", "false", "between"}

#: A syntax tree: ``("col", name)``, ``("lit", value)``, ``("cmp", op, left, right)``,
#: ``("in", operand, values)``, ``("isnull"|"notnull", operand)``, ``("and"|"or", a, b)``, ``("not", a)``.
Node = tuple[Any, ...]


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            msg = f"cannot read {text[pos:].strip()[:20]!r} at position {pos + 1} of {text!r}"
            raise OptionError(msg)
        pos = m.end()
        kind = cast("str", m.lastgroup)
        raw = m.group(kind)
        if kind == "num":
            out.append(("lit", float(raw) if any(c in raw for c in ".eE") else int(raw)))
        elif kind == "str":
            out.append(("lit", raw[1:-1].replace("''", "'")))
        elif kind == "qid":
            out.append(("col", raw[1:-1].replace('""', '"')))
        elif kind == "word" and raw.lower() in _WORDS:
            word = raw.lower()
            out.append(("lit", word == "true") if word in ("true", "false") else ("kw", word))
        elif kind == "word":
            out.append(("col", raw))
        else:
            out.append(("op", "=" if raw == "==" else "!=" if raw == "<>" else raw))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, kind: str, value: Any = None) -> bool:
        if self.i >= len(self.toks):
            return False
        k, v = self.toks[self.i]
        return k == kind and (value is None or v == value)

    def take(self, kind: str, value: Any = None) -> Any:
        if not self.peek(kind, value):
            got = repr(self.toks[self.i][1]) if self.i < len(self.toks) else "the end"
            want = repr(value) if value is not None else {"col": "a column", "lit": "a value"}.get(kind, kind)
            msg = f"expected {want}, got {got} in {self.text!r}"
            raise OptionError(msg)
        self.i += 1
        return self.toks[self.i - 1][1]

    def parse(self) -> Node:
        node = self.disjunction()
        if self.i < len(self.toks):
            msg = f"unexpected {self.toks[self.i][1]!r} in {self.text!r}"
            raise OptionError(msg)
        return node

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self.peek("kw", "or"):
            self.i += 1
            node = ("or", node, self.conjunction())
        return node

    def conjunction(self) -> Node:
        node = self.negation()
        while self.peek("kw", "and"):
            self.i += 1
            node = ("and", node, self.negation())
        return node

    def negation(self) -> Node:
        if self.peek("kw", "not"):
            self.i += 1
            return ("not", self.negation())
        return self.comparison()

    def operand(self) -> Node:
        if self.peek("op", "("):
            self.i += 1
            node = self.disjunction()
            self.take("op", ")")
            return node
        if self.peek("col"):
            return ("col", self.take("col"))
        return ("lit", self.take("lit"))

    def comparison(self) -> Node:
        left = self.operand()
        if self.peek("op") and self.toks[self.i][1] in ("=", "!=", "<", "<=", ">", ">="):
            op = self.take("op")
            return ("cmp", op, left, self.operand())
        if self.peek("kw", "is"):
            self.i += 1
            negated = self.peek("kw", "not") and bool(self.take("kw", "not"))
            self.take("kw", "null")
            return ("notnull" if negated else "isnull", left)
        negated = self.peek("kw", "not")
        if negated:
            self.i += 1
        if self.peek("kw", "in"):
            self.i += 1
            self.take("op", "(")
            values = [self.take("lit")]
            while self.peek("op", ","):
                self.i += 1
                values.append(self.take("lit"))
            self.take("op", ")")
            node: Node = ("in", left, tuple(values))
            return ("not", node) if negated else node
        if self.peek("kw", "between"):
            self.i += 1
            low = self.operand()
            self.take("kw", "and")
            node = ("and", ("cmp", ">=", left, low), ("cmp", "<=", left, self.operand()))
            return ("not", node) if negated else node
        if negated:
            self.take("kw", "in")
        return left


def where_tree(text: str) -> Node:
    """The syntax tree of a ``where`` text (the grammar: see the module).

    Parameters
    ----------
    text
        A SQL boolean expression.

    Returns
    -------
    Node
        The tree, e.g. ``('cmp', '>=', ('col', 'day'), ('lit', 3))``.

    Raises
    ------
    OptionError
        Text that is not such an expression (the message quotes where it stopped).

    Examples
    --------
    >>> where_tree("day >= 3 AND \\"the model\\" IN ('a', 'b')")
    ('and', ('cmp', '>=', ('col', 'day'), ('lit', 3)), ('in', ('col', 'the model'), ('a', 'b')))
    """
    if not isinstance(text, str) or not text.strip():
        msg = "an empty where; leave the key out to keep every row"
        raise OptionError(msg)
    return _Parser(text).parse()


def where_columns(node: Node) -> set[str]:
    """The columns a parsed ``where`` reads.

    Parameters
    ----------
    node
        A tree of :func:`where_tree`.

    Returns
    -------
    set of str
        The column names.

    Raises
    ------
    IndexError
        ``node`` is not such a tree.
    """
    kind = node[0]
    if kind == "col":
        return {node[1]}
    if kind in ("lit", "in"):
        return where_columns(node[1]) if kind == "in" else set()
    children = node[2:] if kind == "cmp" else node[1:]
    return set().union(*(where_columns(n) for n in children))


def _missing(name: str, schema: Mapping[str, Any]) -> ColumnNotFoundError:
    msg = f"column {name!r} is not in the input; available columns: {list(schema)}"
    return ColumnNotFoundError(msg)


def _literal(value: Any, column: Node, schema: Mapping[str, Any] | None) -> Any:
    """A literal compared with a column, checked against (and read as) the column's type."""
    if schema is None or column[0] != "col":
        return value
    name = column[1]
    if name not in schema:
        raise _missing(name, schema)
    dtype = schema[name]
    numeric = dtype.is_numeric()
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)) and not numeric:
        msg = (
            f"column {name!r} holds {dtype} values, compared with the number {value!r}; quote text: '{value}'"
        )
        raise OptionError(msg)
    if isinstance(value, str) and numeric:
        msg = f"column {name!r} holds {dtype} numbers, compared with the text {value!r}; leave the quotes out"
        raise OptionError(msg)
    if isinstance(value, str) and dtype.is_temporal():
        try:
            return (date.fromisoformat if str(dtype) == "Date" else datetime.fromisoformat)(value)
        except ValueError:
            msg = f"column {name!r} holds {dtype} values, compared with {value!r}, which is not an ISO date (e.g. '2024-01-02')"
            raise OptionError(msg) from None
    return value


def _not_boolean(node: Node, schema: Mapping[str, Any]) -> str | None:
    """The type of a bare column or literal where a condition belongs (None: it is one)."""
    kind = node[0]
    if kind in ("and", "or"):
        return _not_boolean(node[1], schema) or _not_boolean(node[2], schema)
    if kind == "not":
        return _not_boolean(node[1], schema)
    if kind == "col" and schema[node[1]] != pl.Boolean:
        return str(schema[node[1]])
    if kind == "lit" and not isinstance(node[1], bool) and node[1] is not None:
        return type(node[1]).__name__
    return None


def _compile(node: Node, schema: Mapping[str, Any] | None, ns: Any) -> Any:  # noqa: PLR0911 -- a dispatch, one return per case
    kind = node[0]
    if kind == "col":
        if schema is not None and node[1] not in schema:
            raise _missing(node[1], schema)
        return ns.col(node[1])
    if kind == "lit":
        return ns.lit(node[1])
    if kind == "and":
        return _compile(node[1], schema, ns) & _compile(node[2], schema, ns)
    if kind == "or":
        return _compile(node[1], schema, ns) | _compile(node[2], schema, ns)
    if kind == "not":
        return ~_compile(node[1], schema, ns)
    if kind == "isnull":
        return _compile(node[1], schema, ns).is_null()
    if kind == "notnull":
        return ~_compile(node[1], schema, ns).is_null()
    if kind == "in":
        return _compile(node[1], schema, ns).is_in([_literal(v, node[1], schema) for v in node[2]])
    op, left, right = node[1], node[2], node[3]
    if left[0] == "lit" and right[0] == "col":
        left = ("lit", _literal(left[1], right, schema))
    if right[0] == "lit" and left[0] == "col":
        right = ("lit", _literal(right[1], left, schema))
    a, b = _compile(left, schema, ns), _compile(right, schema, ns)
    return {
        "=": lambda: a == b,
        "!=": lambda: a != b,
        "<": lambda: a < b,
        "<=": lambda: a <= b,
        ">": lambda: a > b,
        ">=": lambda: a >= b,
    }[op]()


def _checked(text: str, schema: Mapping[str, Any] | None, ns: Any) -> Any:
    tree = where_tree(text)
    if schema is not None:
        for name in sorted(where_columns(tree)):
            if name not in schema:
                raise _missing(name, schema)
        wrong = _not_boolean(tree, schema)
        if wrong is not None:
            msg = f"it gives {wrong} values, not true/false; write a condition, e.g. \"model = 'a'\""
            raise OptionError(msg)
    return _compile(tree, schema, ns).fill_null(value=False)


def where_expression(text: str, schema: Mapping[str, Any] | None = None) -> nw.Expr:
    """A ``where`` text as a Narwhals boolean expression (runs on every engine; a null is not true).

    Parameters
    ----------
    text
        A SQL boolean expression (the grammar: see the module).
    schema
        Column -> Polars dtype. With it the columns are checked, a literal compared with a
        column is checked against its type (text with a number is an error; an ISO date in
        quotes compared with a date column is read as a date), and the whole must be a condition.

    Returns
    -------
    narwhals.Expr
        True where the row is kept (never null).

    Raises
    ------
    OptionError
        Text that does not parse, a literal of another type than its column, or an
        expression that is not a condition.
    ColumnNotFoundError
        A column that is not in ``schema``.

    Examples
    --------
    >>> import polars as pl, narwhals.stable.v1 as nw
    >>> df = nw.from_native(pl.DataFrame({"day": [1, 3, None]}))
    >>> df.select(where_expression("day >= 3 OR day IS NULL").alias("w"))["w"].to_list()
    [False, True, True]
    """
    expr: nw.Expr = _checked(text, schema, nw)
    return expr


def parse_where(text: str, schema: Mapping[str, Any], *, what: str = "where") -> pl.Expr:
    """A ``where`` text as a Polars filter, checked against the columns of ``schema`` (``--where``).

    The same language and compiler as :func:`where_expression`, with messages that quote
    the text after ``what``.

    Parameters
    ----------
    text
        A SQL boolean expression over the columns, e.g. ``"model = 'a' AND day >= '2024-01-02'"``;
        quote a column name with a space in double quotes (``"my col" > 1``).
    schema
        The columns (and dtypes) of the frame the filter is for.
    what
        How the expression is named in messages (``--where`` on the command line).

    Returns
    -------
    pl.Expr
        A boolean expression: ``frame.filter(parse_where(text, frame.collect_schema()))``.

    Raises
    ------
    ColumnNotFoundError
        The expression names a column the frame does not have.
    OptionError
        The text does not parse, does not fit the columns' types, or does not give true/false.

    Examples
    --------
    >>> import datetime as dt
    >>> df = pl.DataFrame({"model": ["a", "a", "b"], "day": [dt.date(2024, 1, d) for d in (1, 2, 3)]})
    >>> df.filter(parse_where("model = 'a' AND day >= '2024-01-02'", df.schema)).height
    1
    """
    if not isinstance(text, str) or not text.strip():
        msg = f"{what} {text!r}: expected a SQL boolean expression, e.g. \"model = 'a' AND day >= '2024-01-02'\""
        raise OptionError(msg)
    try:
        tree = where_tree(text)
    except OptionError as exc:
        msg = f"{what} {text!r} is not a SQL expression: {exc}"
        raise OptionError(msg) from None
    missing = sorted(c for c in where_columns(tree) if c not in schema)
    if missing:
        msg = (
            f"{what} {text!r} names column {missing[0]!r}, which the input does not have; "
            f"available columns: {list(schema)}"
        )
        raise ColumnNotFoundError(msg)
    try:
        expr: pl.Expr = _checked(text, schema, pl)
    except OptionError as exc:
        msg = f"{what} {text!r} does not apply to the input's columns: {exc}"
        raise OptionError(msg) from None
    return expr
