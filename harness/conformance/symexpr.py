"""Safe evaluator for the engine's symbolic dim expressions.

Grammar (the binary's contract): integers; names bare when they match
``[A-Za-z_][A-Za-z0-9_]*`` or between backticks; binary ``+ - * / %`` with
Python precedence where ``/`` is floor division and ``%`` is Python modulo;
unary minus; parentheses; ``min(a, b)`` and ``max(a, b)``.

No ``eval``: a tokenizer and a recursive-descent parser build a tiny AST.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


class ExprError(ValueError):
    """The text is not a valid expression."""


class Unbound(LookupError):
    """The expression names a symbol the binding does not define."""

    def __init__(self, names):
        super().__init__(", ".join(sorted(names)))
        self.names = set(names)


_TOKEN = re.compile(
    r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|`(?P<quoted>[^`]*)`|(?P<op>[-+*/%(),]))"
)


def tokenize(text: str):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"bad character at {pos} in {text!r}")
        pos = m.end()
        if m.group("int") is not None:
            out.append(("int", int(m.group("int"))))
        elif m.group("name") is not None:
            out.append(("name", m.group("name")))
        elif m.group("quoted") is not None:
            out.append(("name", m.group("quoted")))
        else:
            out.append(("op", m.group("op")))
    return out


@dataclass(frozen=True)
class Node:
    kind: str  # int | name | neg | bin | call
    value: object = None
    args: tuple = ()


class _Parser:
    def __init__(self, toks):
        self.toks, self.i = toks, 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, op=None):
        tok = self.peek()
        if tok[0] is None:
            raise ExprError("unexpected end of expression")
        if op is not None and tok != ("op", op):
            raise ExprError(f"expected {op!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def expr(self):  # sum := term (('+'|'-') term)*
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = Node("bin", op, (node, self.term()))
        return node

    def term(self):  # term := unary (('*'|'/'|'%') unary)*
        node = self.unary()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = self.take()[1]
            node = Node("bin", op, (node, self.unary()))
        return node

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return Node("neg", None, (self.unary(),))
        if self.peek() == ("op", "+"):
            self.take()
            return self.unary()
        return self.atom()

    def atom(self):
        kind, val = self.take()
        if kind == "int":
            return Node("int", val)
        if kind == "name":
            if val in ("min", "max") and self.peek() == ("op", "("):
                self.take("(")
                a = self.expr()
                self.take(",")
                b = self.expr()
                self.take(")")
                return Node("call", val, (a, b))
            return Node("name", val)
        if (kind, val) == ("op", "("):
            node = self.expr()
            self.take(")")
            return node
        raise ExprError(f"unexpected {val!r}")


def parse(text: str) -> Node:
    p = _Parser(tokenize(text))
    node = p.expr()
    if p.i != len(p.toks):
        raise ExprError(f"trailing tokens in {text!r}")
    return node


def names(node: Node) -> set:
    if node.kind == "name":
        return {node.value}
    out = set()
    for a in node.args:
        out |= names(a)
    return out


def _ev(node: Node, env) -> int:
    k = node.kind
    if k == "int":
        return node.value
    if k == "name":
        return env[node.value]
    if k == "neg":
        return -_ev(node.args[0], env)
    if k == "call":
        a, b = (_ev(x, env) for x in node.args)
        return min(a, b) if node.value == "min" else max(a, b)
    a, b = (_ev(x, env) for x in node.args)
    op = node.value
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise ZeroDivisionError(f"division by zero")
        return a // b
    if op == "%":
        if b == 0:
            raise ZeroDivisionError(f"modulo by zero")
        return a % b
    raise ExprError(op)


_CACHE: dict = {}


def evaluate(text, env: dict) -> int:
    """Value of a dim (int or expression text) under ``env`` (name -> int).

    Raises Unbound when a name is missing, ExprError on bad syntax.
    """
    if isinstance(text, bool):
        raise ExprError("bool is not a dim")
    if isinstance(text, int):
        return text
    node = _CACHE.get(text)
    if node is None:
        node = _CACHE[text] = parse(text)
    missing = names(node) - set(env)
    if missing:
        raise Unbound(missing)
    return _ev(node, env)
