#!/usr/bin/env python3
"""Writes golden vectors for the scaffolding filter, produced by the
reference Python filter:

- __test__/fixtures/scaffolding.json: the default patterns;
- __test__/fixtures/scaffolding-registries.json: each preset of
  SCAFFOLD_PRESETS and a few custom registries, each given as its
  `patterns`.

    python3 scripts/gen-scaffolding-fixture.py [SPEC_DIR]

SPEC_DIR holds scaffolding_filter.py; it defaults to ../shared/spec beside
the project root. The presets are read from the built package (run
`npm install` first), so that they are written down in one place only. The
output is deterministic (seeded), so rerunning it changes nothing unless the
reference, the presets or this script changed.

The reference knows one registry, read from its module globals. A registry
with at most one span runs by patching them (see `use_registry`); one with
two spans cannot, and is left to the Rust tests, whose transcription of the
reference takes any registry. Literals must be in the Basic Multilingual
Plane: Python counts code points, and a pair split between two chunks would
not rejoin into one inside the reference.

Each case is one filter's life: one or more rounds of chunks, each round
ending with a flush, then the spans it stripped. Chunks are cut at UTF-16
code-unit positions, as JavaScript would see them, so a cut can fall inside
a surrogate pair; each piece is then decoded on its own, which leaves the
two halves as lone surrogates, exactly what a JavaScript caller would pass.
`strippedChars` is given in UTF-16 code units (the reference counts code
points; the two differ only for astral characters inside a stripped span).
"""
import contextlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "spec"
sys.path.insert(0, str(SPEC_DIR))
import scaffolding_filter as reference  # noqa: E402
from scaffolding_filter import ScaffoldingFilter  # noqa: E402

OUT = ROOT / "__test__" / "fixtures" / "scaffolding.json"
OUT_REGISTRIES = ROOT / "__test__" / "fixtures" / "scaffolding-registries.json"
SEED = 20240613
RANDOM_TEXTS = 3000
RANDOM_TEXTS_PER_REGISTRY = 250

S = "<|tool_call_start|>"
E = "<|tool_call_end|>"
CALLS = "<|tool_calls|>"
CALL = "<|tool_call|>"
PAIR = "\U0001F600"
HIGH, LOW = "\ud83d", "\ude00"

# Hand-picked streams, each given as its chunks.
STREAMS = {
    "plain text": ["hello, world"],
    "whole span": [f"a{S}[read(path='x')]{E}b"],
    "both tokens": [f"a{CALLS}b{CALL}c"],
    "strip joins its neighbours into a token": [f"<|tool_{CALLS}call|>"],
    "token inside an open span is stripped alone": [f"{S}a{CALL}b", f"c{E}d"],
    "token inside a span that closes in the same buffer is swallowed": [f"{S}a{CALL}b{E}c"],
    "a strip inside an open span forms the end": [f"{S}a<|tool_call_", f"{CALL}end|>b"],
    "a strip forms a start": [f"x<|tool_call_{CALL}start|>y{E}z"],
    "end without a start is content": [f"x{E}y"],
    "a second start inside a span is content": [f"a{S}b", f"{S}c", f"d{E}e{S}f{E}g"],
    "start split across chunks": ["x<|tool_call_st", f"art|>y{E}z"],
    "end split between the held span and the chunk": [f"{S}y<|tool_call_e", "nd|>z"],
    "partial marker is flushed as content": ["ab<|tool"],
    "unclosed span is flushed as content": [f"a{S}xyz", f"{CALL}w"],
    "an empty chunk returns nothing and changes nothing": ["ab<|to", "", "x"],
    "the held tail is the longest partial opening": ["<|tool_call_star"],
    "a partial end is not held": ["a<|tool_call_en"],
    "astral characters inside a stripped span": [f"{S}{PAIR}{PAIR}{E}{PAIR}"],
    "lone surrogates pass through": [f"{LOW}x{HIGH}", f"{CALL}{HIGH}"],
    "many spans and tokens": [f"{S}1{E}a{CALL}b{S}2{CALLS}{E}c{CALLS}{S}3"],
}

# Hand-picked lives with a flush in the middle: the filter is fed again.
REUSED = {
    "feeding again after a flush": [[f"a{S}b"], [f"c{E}{CALL}d"]],
    "a flushed partial does not join the next round": [["x<|tool_"], ["call|>y"]],
}

FRAGMENTS = [
    "<|", "tool_call", "_start", "_end", "s|>", "|>", "<", ">", "|", "_", "a", "b", " ", "\n", "\u00e9",
    "<|tool_call", S, E, CALL, CALLS, PAIR, HIGH, LOW,
]


def utf16(text):
    return text.encode("utf-16-le", "surrogatepass")


def units(text):
    return len(utf16(text)) // 2


def cut(text, positions):
    """Cuts text at the given code-unit positions; each piece is decoded on
    its own, so a cut inside a surrogate pair leaves two lone halves."""
    data = utf16(text)
    bounds = [0, *positions, len(data) // 2]
    return [data[2 * a:2 * b].decode("utf-16-le", "surrogatepass") for a, b in zip(bounds, bounds[1:])]


def per_unit(text):
    return cut(text, range(1, units(text)))


def run(name, rounds):
    flt = ScaffoldingFilter()
    played = []
    for chunks in rounds:
        outputs = [flt.feed(chunk) for chunk in chunks]
        played.append({"chunks": chunks, "outputs": outputs, "flush": flt.flush()})
    spans = flt.stripped_spans
    return {
        "name": name,
        "rounds": played,
        "spans": spans,
        "strippedChars": sum(units(span) for span in spans),
    }


def random_chunking(rng, text):
    total = units(text)
    style = rng.randrange(8)
    if style == 0 or total < 2:
        return [text]
    if style == 1:
        return per_unit(text)
    positions = sorted(rng.choices(range(0, total + 1), k=rng.randrange(1, max(2, total // 3))))
    return cut(text, positions)


def cases():
    yield from (run(name, [chunks]) for name, chunks in STREAMS.items())
    for name, chunks in STREAMS.items():
        whole = "".join(chunks)
        yield run(f"{name} (one chunk)", [[whole]])
        yield run(f"{name} (one chunk per code unit)", [per_unit(whole)])
    yield from (run(name, rounds) for name, rounds in REUSED.items())
    rng = random.Random(SEED)
    for index in range(RANDOM_TEXTS):
        text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(0, 30)))
        rounds = [random_chunking(rng, text)]
        if rng.randrange(4) == 0:
            rounds.append(random_chunking(rng, text))
        yield run(f"random {index}", rounds)


# Custom registries beyond the presets: regular-expression syntax in the
# literals, a token listed before the span, a one-unit span, a token longer
# than the span's start, and tokens only.
CUSTOM = {
    "custom: regex syntax, a token before the span": [
        {"token": "<eot>"},
        {"start": "[call]", "end": "[/call]"},
        {"token": "(*)"},
    ],
    "custom: a one-unit span and a long token": [
        {"start": "\u27e6", "end": "\u27e7"},
        {"token": "<|endoftext|>"},
    ],
    "custom: tokens only": [{"token": "<think>"}, {"token": "</think>"}],
}

# Stands for "no span" in the reference's globals; no generated text holds it.
NO_SPAN = "\x00no span\x00"

GENERIC = ["a", " ", "\n", "\u00e9", "<", ">", "|", "[", "]", PAIR, HIGH, LOW]


def presets():
    """The presets of SCAFFOLD_PRESETS that run exactly as the reference
    does (the package says which: ScaffoldRegistry.runsAsReference), as the
    built package exports them."""
    script = (
        "const m = require(process.argv[1]); const out = {};"
        "for (const [name, p] of Object.entries(m.SCAFFOLD_PRESETS))"
        " if (new m.ScaffoldRegistry(p).runsAsReference) out[name] = p;"
        "process.stdout.write(JSON.stringify(out))"
    )
    done = subprocess.run(
        ["node", "-e", script, str(ROOT / "lib" / "index.cjs")], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout)


def split(patterns):
    """The registry's one span (or None) and its tokens, checked to be
    something the reference can run."""
    spans = [(p["start"], p["end"]) for p in patterns if "start" in p]
    tokens = [p["token"] for p in patterns if "token" in p]
    assert len(spans) <= 1, "the reference runs at most one span"
    for literal in [*tokens, *(x for span in spans for x in span)]:
        assert literal and all(ord(c) < 0x10000 for c in literal), literal
    return (spans[0] if spans else None), tokens


@contextlib.contextmanager
def use_registry(patterns):
    """Points the reference's globals at another registry: the span first,
    then the tokens, as the default is laid out."""
    span, tokens = split(patterns)
    names = ["SCAFFOLD_PATTERNS", "_SPAN_START", "_SPAN_END", "_OPENINGS", "_MAX_OPENING"]
    saved = {name: getattr(reference, name) for name in names}
    start, end = span if span else (NO_SPAN, NO_SPAN + "end")
    compiled = [re.compile(re.escape(start) + r"[\s\S]*?" + re.escape(end))] if span else []
    compiled += [re.compile(re.escape(token)) for token in tokens]
    openings = ([start] if span else []) + tokens
    reference.SCAFFOLD_PATTERNS = tuple(compiled)
    reference._SPAN_START, reference._SPAN_END = start, end
    reference._OPENINGS = tuple(openings)
    reference._MAX_OPENING = max(len(opening) for opening in openings)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(reference, name, value)


def registry_streams(patterns):
    """Hand-picked streams built from a registry's literals."""
    span, tokens = split(patterns)
    streams = {"plain text": ["hello, world"]}
    if span:
        s, e = span
        hs, he = len(s) // 2, len(e) // 2
        streams.update({
            "whole span": [f"a{s}[call(x=1)]{e}b"],
            "span across chunks": [f"a{s}[ca", f"ll]{e}b"],
            "start split across chunks": [f"x{s[:hs]}", f"{s[hs:]}y{e}z"],
            "end split between the held span and the chunk": [f"{s}y{e[:he]}", f"{e[he:]}z"],
            "end without a start is content": [f"x{e}y"],
            "a second start inside a span is content": [f"a{s}b", f"{s}c", f"d{e}e"],
            "unclosed span is flushed as content": [f"a{s}xyz"],
            "partial start is flushed as content": [f"ab{s[:-1]}"],
            "a partial end is not held": [f"a{e[:-1]}"],
        })
    for i, t in enumerate(tokens):
        ht = len(t) // 2
        streams.update({
            f"token {i}": [f"a{t}b{t}"],
            f"token {i} split across chunks": [f"a{t[:ht]}", f"{t[ht:]}b"],
            f"partial token {i} is flushed as content": [f"ab{t[:-1]}"],
            f"a strip joins its neighbours into token {i}": [t[:ht] + t + t[ht:]],
        })
        if span:
            s, e = span
            hs = len(s) // 2
            streams.update({
                f"token {i} inside an open span is stripped alone": [f"{s}a{t}b", f"c{e}d"],
                f"token {i} inside a closed span is swallowed": [f"{s}a{t}b{e}c"],
                f"a strip of token {i} forms a start": [f"x{s[:hs]}{t}{s[hs:]}y{e}z"],
            })
    return streams


def registry_fragments(patterns):
    """Fragments for random texts: each literal, its halves, its characters,
    and some plain text. Whole literals and halves weigh more than single
    characters, so that long literals still complete often."""
    fragments = list(GENERIC)
    for entry in patterns:
        for literal in entry.values():
            half = len(literal) // 2
            fragments += [literal] * 6 + [literal[:half], literal[half:]] * 3 + list(literal)
    return fragments


def registry_cases(name, patterns):
    with use_registry(patterns):
        streams = registry_streams(patterns)
        for stream, chunks in streams.items():
            yield run(f"{name}: {stream}", [chunks])
            whole = "".join(chunks)
            yield run(f"{name}: {stream} (one chunk)", [[whole]])
            yield run(f"{name}: {stream} (one chunk per code unit)", [per_unit(whole)])
        rng = random.Random(f"{SEED}/{name}")
        fragments = registry_fragments(patterns)
        for index in range(RANDOM_TEXTS_PER_REGISTRY):
            text = "".join(rng.choice(fragments) for _ in range(rng.randrange(0, 30)))
            assert NO_SPAN not in text
            rounds = [random_chunking(rng, text)]
            if rng.randrange(4) == 0:
                rounds.append(random_chunking(rng, text))
            yield run(f"{name}: random {index}", rounds)


def write(path, header, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(header, ensure_ascii=True, separators=(",", ":"))[:-1]
    path.write_text(head + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n", encoding="ascii")
    print(f"wrote {len(lines)} cases to {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")


def dump(value):
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def main():
    write(
        OUT,
        {
            "about": "Golden vectors from the reference scaffolding filter; "
            "regenerate with scripts/gen-scaffolding-fixture.py.",
            "seed": SEED,
        },
        [dump(case) for case in cases()],
    )

    # A preset with two spans is beyond the reference (see the top of this
    # file); the Rust property tests check it against their transcription.
    # A preset that does not run as the reference runs on the general
    # engine, which tests/general_properties.rs checks.
    registries = [
        {"name": name, "preset": name, "patterns": patterns}
        for name, patterns in presets().items()
        if sum("start" in p for p in patterns) <= 1
    ]
    registries += [{"name": name, "patterns": patterns} for name, patterns in CUSTOM.items()]
    lines = []
    for registry in registries:
        lines += [dump({"registry": registry["name"], **case}) for case in registry_cases(registry["name"], registry["patterns"])]
    write(
        OUT_REGISTRIES,
        {
            "about": "Golden vectors from the reference scaffolding filter run with other registries "
            "(its globals patched); regenerate with scripts/gen-scaffolding-fixture.py.",
            "seed": SEED,
            "registries": registries,
        },
        lines,
    )


if __name__ == "__main__":
    main()
