"""The ``--where`` language over stored solutions: text in, a query tree out.

A query asks which solutions use certain options.  Its atoms name placements the way a
person reads a board; :mod:`core.where_options` turns each atom into the option ids it
stands for, and the ledger answers from its index of options per solution.

Grammar (keywords in any case; a piece name that is a keyword or holds other characters
goes in double quotes)::

    query  := either ("or" either)*
    either := unary ("and" unary)*
    unary  := "not" unary | "(" query ")" | atom
    atom   := PIECE "@" CELL                 the piece covers the cell
            | PIECE "touches" CELL           the piece covers a neighbour of the cell
            | CELL "in" "{" PIECE ("," PIECE)* "}"   one of the pieces covers the cell
            | "option" TEXT                  an option whose text matches (* and ?)
            | "item" TEXT                    an option that covers the item
    CELL   := INT "," INT ["," INT]          row,col or layer,row,col, from 0
            | r<row>c<col> | l<layer>r<row>c<col>

Errors are :class:`WhereError`: one line naming the column of the text where it went
wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from .errors import ProblemError

#: a cell as written: (row, col) or (layer, row, col)
CellRef = tuple[int, ...]

KEYWORDS = {"and", "or", "not", "in", "touches", "option", "item"}
#: the most atoms in one query: each becomes a SQL subquery, and a query is typed by a person
MAX_ATOMS = 64

_TOKEN = re.compile(r"""\s*(?:(?P<str>"[^"]*")|(?P<punct>[@{}(),])|(?P<word>[^\s@{}(),"]+))""")
_NAMED_CELL = re.compile(r"(?:l(\d+))?r(\d+)c(\d+)")


class WhereError(ProblemError):
    """A ``--where`` text that does not parse, or names what the problem has not."""


@dataclass(frozen=True)
class PieceAt:
    piece: str
    cell: CellRef

    def __str__(self) -> str:
        return f"{_name(self.piece)}@{_cell(self.cell)}"


@dataclass(frozen=True)
class PieceTouches:
    piece: str
    cell: CellRef

    def __str__(self) -> str:
        return f"{_name(self.piece)} touches {_cell(self.cell)}"


@dataclass(frozen=True)
class CellIn:
    cell: CellRef
    pieces: tuple[str, ...]

    def __str__(self) -> str:
        return f"{_cell(self.cell)} in {{{','.join(_name(p) for p in self.pieces)}}}"


@dataclass(frozen=True)
class OptionLike:
    pattern: str

    def __str__(self) -> str:
        return f'option "{self.pattern}"'


@dataclass(frozen=True)
class ItemCovered:
    item: str

    def __str__(self) -> str:
        return f'item "{self.item}"'


@dataclass(frozen=True)
class Not:
    part: "Query"

    def __str__(self) -> str:
        return f"not {_wrapped(self.part, (And, Or))}"


@dataclass(frozen=True)
class And:
    parts: tuple["Query", ...]

    def __str__(self) -> str:
        return " and ".join(_wrapped(p, (Or,)) for p in self.parts)


@dataclass(frozen=True)
class Or:
    parts: tuple["Query", ...]

    def __str__(self) -> str:
        return " or ".join(str(p) for p in self.parts)


Atom = Union[PieceAt, PieceTouches, CellIn, OptionLike, ItemCovered]
Query = Union[Atom, Not, And, Or]


def parse_where(text: str) -> Query:
    """The query tree of one ``--where`` text (:class:`WhereError` if it is not one)."""
    return _Parser(text).parse()


def parse_all(texts: list[str] | tuple[str, ...]) -> Query:
    """Several ``--where`` texts: all of them must hold."""
    if not texts:
        raise WhereError("--where: no query given")
    queries = [parse_where(t) for t in texts]
    return queries[0] if len(queries) == 1 else And(tuple(queries))


def _name(piece: str) -> str:
    plain = re.fullmatch(r"[^\s@{}(),\"]+", piece) and piece.lower() not in KEYWORDS and not _is_cell_word(piece)
    return piece if plain and not piece.isdigit() else f'"{piece}"'


def _cell(cell: CellRef) -> str:
    return ",".join(map(str, cell))


def _wrapped(q: Query, kinds: tuple[type, ...]) -> str:
    return f"({q})" if isinstance(q, kinds) else str(q)


def _is_cell_word(word: str) -> bool:
    return _NAMED_CELL.fullmatch(word) is not None


class _Parser:
    """Recursive descent over the tokens of one text."""

    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, text, column from 1)
        self.atoms = 0
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:  # only blanks left, or an unclosed quote
                rest = text[pos:].lstrip()
                if rest:
                    self.fail("a double quote that is not closed", len(text) - len(rest) + 1)
                break
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind), m.start(kind) + 1))
            pos = m.end()
        self.i = 0

    def fail(self, what: str, column: int | None = None) -> None:
        if column is None:
            column = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text) + 1
        raise WhereError(f"--where {self.text!r}: {what} (column {column})")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def keyword(self, word: str) -> bool:
        t = self.peek()
        if t is not None and t[0] == "word" and t[1].lower() == word:
            self.i += 1
            return True
        return False

    def punct(self, ch: str) -> bool:
        t = self.peek()
        if t is not None and t[0] == "punct" and t[1] == ch:
            self.i += 1
            return True
        return False

    def expect(self, ch: str, what: str) -> None:
        if not self.punct(ch):
            self.fail(f"expected {what}")

    def parse(self) -> Query:
        if not self.tokens:
            self.fail("an empty query", 1)
        q = self.query(0)
        if self.peek() is not None:
            self.fail(f"unexpected {self.peek()[1]!r} (join conditions with and / or)")
        return q

    def query(self, depth: int) -> Query:
        if depth > 32:
            self.fail("parentheses nested too deep")
        parts = [self.either(depth)]
        while self.keyword("or"):
            parts.append(self.either(depth))
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def either(self, depth: int) -> Query:
        parts = [self.unary(depth)]
        while self.keyword("and"):
            parts.append(self.unary(depth))
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def unary(self, depth: int) -> Query:
        if self.keyword("not"):
            return Not(self.unary(depth + 1))
        if self.punct("("):
            q = self.query(depth + 1)
            self.expect(")", "')'")
            return q
        self.atoms += 1
        if self.atoms > MAX_ATOMS:
            self.fail(f"more than {MAX_ATOMS} conditions")
        return self.atom()

    def atom(self) -> Atom:
        t = self.peek()
        if t is None:
            self.fail("expected a condition: PIECE@CELL, PIECE touches CELL, CELL in {PIECES}, option TEXT or item TEXT")
        kind, text, _ = t
        if kind == "word" and text.lower() in ("option", "item"):
            self.i += 1
            value = self.text_value()
            return OptionLike(value) if text.lower() == "option" else ItemCovered(value)
        if self.at_cell():
            cell = self.cell()
            if not self.keyword("in"):
                self.fail("expected 'in' after a cell (CELL in {PIECE, ...})")
            self.expect("{", "'{'")
            pieces = [self.piece()]
            while self.punct(","):
                pieces.append(self.piece())
            self.expect("}", "'}' or ','")
            return CellIn(cell, tuple(pieces))
        piece = self.piece()
        if self.punct("@"):
            return PieceAt(piece, self.cell())
        if self.keyword("touches"):
            return PieceTouches(piece, self.cell())
        self.fail(f"expected '@' or 'touches' after the piece {piece!r}")
        raise AssertionError  # (fail raised)

    def at_cell(self) -> bool:
        """Whether a cell starts here: ``r3c4``, or a number followed by a comma."""
        t = self.peek()
        if t is None or t[0] != "word":
            return False
        if _is_cell_word(t[1]):
            return True
        nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
        return t[1].isdigit() and nxt is not None and nxt[1] == ","

    def cell(self) -> CellRef:
        t = self.peek()
        if t is not None and t[0] == "word":
            m = _NAMED_CELL.fullmatch(t[1])
            if m:
                self.i += 1
                return tuple(int(g) for g in m.groups() if g is not None)
        coords = [self.number()]
        while len(coords) < 3 and self.punct(","):
            coords.append(self.number())
        if len(coords) < 2:
            self.fail("expected a cell: row,col or layer,row,col (or r3c4)")
        return tuple(coords)

    def number(self) -> int:
        t = self.peek()
        if t is None or t[0] != "word" or not t[1].isdigit() or len(t[1]) > 9:
            self.fail("expected a cell coordinate (a number from 0)")
        self.i += 1
        return int(t[1])

    def piece(self) -> str:
        t = self.peek()
        if t is not None and t[0] == "str" and len(t[1]) > 2:
            self.i += 1
            return t[1][1:-1]
        if t is None or t[0] != "word" or t[1].lower() in KEYWORDS:
            self.fail("expected a piece name (quote it if it is a keyword)")
        self.i += 1
        return t[1]

    def text_value(self) -> str:
        t = self.peek()
        if t is None or t[0] not in ("str", "word"):
            self.fail("expected a text (in double quotes if it has blanks)")
        self.i += 1
        return t[1][1:-1] if t[0] == "str" else t[1]
