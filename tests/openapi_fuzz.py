"""Requests generated from docs/protocols/openapi.yaml with hypothesis: each operation of the spec
with path, query, header and body values drawn from its schemas, or hostile ones in their place
(wrong types, text where a number goes, bodies nested deep, numbers too long to read, bytes that
are not UTF-8, tokens that are not ASCII). Used by tests/test_openapi_fuzz.py (Flask's test
client) and bench/hostile.py (a real waitress server on 127.0.0.1)."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

SPEC = Path(__file__).resolve().parents[1] / "docs" / "protocols" / "openapi.yaml"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # the template, e.g. /api/matches/{match_id}
    parameters: tuple[dict[str, Any], ...]
    body: dict[str, Any] | None  # the JSON schema of the request body
    secured: bool


@dataclass
class Request:
    method: str
    path: str  # quoted, with its query string
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    operation: str = ""
    secured: bool = False

    def __repr__(self) -> str:  # hypothesis prints it when a case fails
        body = self.body[:120] if self.body else self.body
        return f"Request({self.method} {self.path[:200]} headers={self.headers!r:.200} body={body!r})"


def load_spec(path: Path = SPEC) -> dict[str, Any]:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    return _resolve(spec, spec)


def _resolve(node: Any, root: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            target: Any = root
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            return _resolve(target, root)
        return {k: _resolve(v, root) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, root) for v in node]
    return node


def operations(spec: dict[str, Any]) -> list[Operation]:
    out = []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            body = None
            content = (op.get("requestBody") or {}).get("content") or {}
            if "application/json" in content:
                body = content["application/json"].get("schema") or {}
            out.append(Operation(method.upper(), path, tuple(op.get("parameters") or ()), body,
                                 bool(op.get("security"))))
    return out


# -- values from schemas ---------------------------------------------------------------------------
def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values a schema allows (the common subset of JSON Schema the spec uses)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if schema.get("x-fuzz-examples"):  # values that get past validation, so deeper code runs too
        return st.one_of(st.sampled_from(schema["x-fuzz-examples"]),
                         from_schema({k: v for k, v in schema.items() if k != "x-fuzz-examples"}))
    kind = schema.get("type")
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 40), 60))
    if kind == "integer":
        return st.integers(schema.get("minimum", -10), schema.get("maximum", 10_000))
    if kind == "number":
        return st.floats(schema.get("minimum", 0), schema.get("maximum", 5), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema.get("items") or {}), min_size=schema.get("minItems", 0),
                        max_size=min(schema.get("maxItems", 5), 6))
    if kind == "object":
        props = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        return st.fixed_dictionaries(
            {k: from_schema(v) for k, v in props.items() if k in required},
            optional={k: from_schema(v) for k, v in props.items() if k not in required})
    return hostile_json()


def hostile_json() -> st.SearchStrategy[Any]:
    """Any JSON value, wrong types and big numbers included."""
    leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-2**70, 2**70),
                       st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30))
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner,
                                                                        max_size=4)), max_leaves=12)


HOSTILE_BODIES = [
    b"[" * 30000 + b"]" * 30000,  # RecursionError in the parser
    b'{"notation": ' + b"9" * 5000 + b"}",  # ValueError: too many digits
    b'{"game": "highway-grid", "players": ["\xff\xfe"]}',  # not UTF-8
    b"{" * 50 + b"}" * 50,
    b"\x00\x01\x02",
    b"null",
    b'"just a string"',
    b'{"game": "../../etc/passwd", "players": ["A", "B"]}',
    b'{"game": "highway-dice", "players": [' + b'"p",' * 4999 + b'"p"]}',
]

TOKENS = st.one_of(st.just("wrong"), st.just("é"), st.just("日本語"), st.just("\x7f" * 3),
                   st.text(max_size=40), st.text(st.characters(min_codepoint=128, max_codepoint=0x2FFF),
                                                  min_size=1, max_size=20))


def _text_value(draw: Any) -> str:
    return draw(st.one_of(st.text(max_size=30), st.just("NaN"), st.just("1e999"), st.just("-1"),
                          st.just("9" * 400), st.just("٣")))


@st.composite
def requests(draw: Any, ops: list[Operation], match_ids: list[str], token: str | None = None) -> Request:
    """One request to one of `ops`. `match_ids` are ids that exist (drawn often, so the routes get
    past their 404s); `token`, when given, is sent as the valid X-Referee-Token."""
    op = draw(st.sampled_from(ops))
    path = op.path
    query: dict[str, str] = {}
    headers: dict[str, str] = {}
    for param in op.parameters:
        schema = param.get("schema") or {}
        name, where = param["name"], param["in"]
        if where == "path":
            if name == "match_id" and match_ids:
                value = draw(st.one_of(st.sampled_from(match_ids), st.sampled_from(match_ids),
                                       from_schema(schema), st.text(min_size=1, max_size=80)))
            else:
                value = draw(st.one_of(from_schema(schema), st.text(min_size=1, max_size=40)))
            path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe="") or "x")
            continue
        if not param.get("required") and draw(st.booleans()):
            continue
        if name == "match" and match_ids and draw(st.booleans()):
            value = draw(st.sampled_from(match_ids))
        elif draw(st.integers(0, 3)) == 0:
            value = _text_value(draw)
        else:
            value = str(draw(from_schema(schema)))
        if where == "query":
            query[name] = value
        elif where == "header":
            headers[name] = value
    if query:
        path += "?" + urllib.parse.urlencode(query)
    if op.secured:
        if token is not None:
            headers["X-Referee-Token"] = token
        elif draw(st.booleans()):
            headers["X-Referee-Token"] = draw(TOKENS)
    body = None
    if op.method in ("POST", "PUT", "PATCH"):
        choice = draw(st.integers(0, 9))
        if choice < 5 and op.body is not None:
            body = json.dumps(draw(from_schema(op.body))).encode()
        elif choice < 7:
            body = json.dumps(draw(hostile_json())).encode()
        elif choice < 9:
            body = draw(st.sampled_from(HOSTILE_BODIES))
        else:
            body = draw(st.binary(max_size=200))
        headers["Content-Type"] = "application/json"
    headers = {k: _header_safe(v) for k, v in headers.items()}
    return Request(op.method, path, headers, body, f"{op.method} {op.path}", op.secured)


def _header_safe(value: str) -> str:
    """No line breaks or NULs: no client can send them inside a header value."""
    return value.replace("\r", " ").replace("\n", " ").replace("\x00", " ")
