#!/usr/bin/env python3
"""Writes __test__/fixtures/scaffolding.json: golden vectors for the
scaffolding filter, produced by the reference Python filter.

    python3 scripts/gen-scaffolding-fixture.py [SPEC_DIR]

SPEC_DIR holds scaffolding_filter.py; it defaults to ../shared/spec beside
the project root. The output is deterministic (seeded), so rerunning it
changes nothing unless the reference or this script changed.

Each case is one filter's life: one or more rounds of chunks, each round
ending with a flush, then the spans it stripped. Chunks are cut at UTF-16
code-unit positions, as JavaScript would see them, so a cut can fall inside
a surrogate pair; each piece is then decoded on its own, which leaves the
two halves as lone surrogates, exactly what a JavaScript caller would pass.
`strippedChars` is given in UTF-16 code units (the reference counts code
points; the two differ only for astral characters inside a stripped span).
"""
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "spec"
sys.path.insert(0, str(SPEC_DIR))
from scaffolding_filter import ScaffoldingFilter  # noqa: E402

OUT = ROOT / "__test__" / "fixtures" / "scaffolding.json"
SEED = 20240613
RANDOM_TEXTS = 3000

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


def main():
    lines = [json.dumps(case, ensure_ascii=True, separators=(",", ":")) for case in cases()]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "about": "Golden vectors from the reference scaffolding filter; "
        "regenerate with scripts/gen-scaffolding-fixture.py.",
        "seed": SEED,
    }
    head = json.dumps(header, ensure_ascii=True, separators=(",", ":"))[:-1]
    OUT.write_text(head + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n", encoding="ascii")
    print(f"wrote {len(lines)} cases to {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
