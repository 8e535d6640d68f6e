"""What one ``judges label`` job asks: the pairs, their texts, the prompt filled with them, the grade read back.

:func:`label_pairs` are the (query, doc) pairs to label (a pool file's, or the runs' top k less the judged ones);
:func:`read_texts` reads the query and passage texts (TSV, JSON Lines through the one JSON reader, or
ir_datasets); :func:`prompt_template` is the template (:data:`PROMPT`, UMBRELA's, or a file's) and :func:`fill`
puts the texts into it in one pass; :func:`parse_grade` reads the grade from an answer's ``##final score: N``
line. The job itself (the cache, the calls, the qrels written) is :func:`rankmeter.judges.labelling.label`.

>>> parse_grade("The passage answers it.\\n##final score: 2")
2
>>> fill("Q: {query} P: {passage}", query="what is {passage}?", passage="a {query}")
'Q: what is {passage}? P: a {query}'
"""
from __future__ import annotations

import os
import re

from rankmeter.errors import InputError, ParameterError

__all__ = ["PROMPT", "fill", "label_pairs", "parse_grade", "prompt_template", "read_texts", "umbrela_prompt"]

#: the built-in prompt (rankmeter's own wording of the usual 0-3 relevance scale)
PROMPT = """You are judging search results. Read a search query and one passage, then decide how useful the \
passage is to someone who typed that query.

Use this scale:
3 = the passage is about the query and fully answers it; nothing important is missing.
2 = the passage answers the query, but partly, or the answer is buried among unrelated text.
1 = the passage is on the query's topic but does not answer it.
0 = the passage has nothing to do with the query.

Judge only what the passage says, not what you know yourself. Think about what the searcher wants, then \
whether the passage gives it.

Query: {query}

Passage: {passage}

Explain your judgment in one or two sentences. End your answer with a last line of exactly this form, \
where N is 0, 1, 2 or 3:
##final score: N"""

# ASCII digits only: \d would read a fullwidth '２' or an Arabic-Indic '٢' as 2
_FINAL = re.compile(r"##\s*final\s+score\s*:\s*\**\s*(-?[0-9]+(?:\.[0-9]+)?)\s*\**\s*\.?\s*(?=\n|$)", re.I)
_MARKER = re.compile(r"##\s*final\s+score", re.I)


def parse_grade(text: str, *, grades: range = range(4)) -> int | None:
    """The grade of ``##final score: N``, N one of ``grades``; None when the answer has no such line, N is not
    a whole grade of the scale, or two markers disagree."""
    if not isinstance(text, str):
        return None
    found = _FINAL.findall(text)
    if not found or len(found) != len(_MARKER.findall(text)) or len(set(found)) != 1:
        return None
    value = found[0]
    if not re.fullmatch(r"[0-9]+", value) or int(value) not in grades:
        return None
    return int(value)


_ID_KEYS = ("id", "_id", "qid", "query_id", "docid", "doc_id", "docno", "pid")
_TEXT_KEYS = ("text", "contents", "body", "query", "segment", "passage")


def read_texts(path, *, kind: str = "docs", ids=None) -> dict[str, str]:
    """``{id: text}`` from TSV (``id<TAB>text``; a header whose first field is ``id``, ``qid``, ``docid``...
    is skipped) or JSON Lines (the id in ``id``/``_id``/``qid``/``docid``..., the text in ``text``/``contents``/
    ``query``...; a ``title`` is put before the text), or from ir_datasets (``irds:NAME``: its ``kind``,
    ``queries`` or ``docs``, each one's ``default_text()``; the docs of ``ids`` only, from its docs store)."""
    from rankmeter.io.irds import looks_like_dataset
    if looks_like_dataset(path):
        return _irds_texts(path.removeprefix("irds:"), kind, ids)
    from rankmeter.io.source import load_bytes   # compression, -, special files bounded, recorded as an input
    data, name = load_bytes(path)
    if data.lstrip()[:1] == b"{":
        return _jsonl_texts(data, name)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})", source=name) \
            from None
    texts: dict[str, str] = {}
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        key, tab, text = line.partition("\t")
        if not tab:
            raise InputError("expected id<TAB>text", source=name, line=n)
        if n == 1 and key.strip().lower() in _ID_KEYS:
            continue
        texts[key.strip()] = text
    if not texts:
        raise InputError("has no texts", source=name)
    return texts


_TEXTS_HINT = ('each line is {"id": ID, "text": TEXT} (the id in id, _id, qid, docid...; the text in text, contents, '
               'query...)')


def _jsonl_texts(data: bytes, name: str) -> dict[str, str]:
    """``{id: text}`` of a JSON Lines texts file, read by the one JSON reader with each known field's type checked."""
    from rankmeter.io.schema import Id, Nullable, Record, Str
    from rankmeter.io.structured import json_lines
    schema = Record({}, {**{k: Id() for k in _ID_KEYS}, **{k: Str() for k in _TEXT_KEYS}, "title": Nullable(Str())},
                    what="a text object")
    texts: dict[str, str] = {}
    for n, row in json_lines(data, schema, source=name, hint=_TEXTS_HINT, what="a text object"):
        key = next((row[k] for k in _ID_KEYS if k in row), None)
        text = next((row[k] for k in _TEXT_KEYS if k in row), None)
        if key is None or text is None:
            raise InputError(f"expected a JSON object with an id ({', '.join(_ID_KEYS)}) and a text "
                             f"({', '.join(_TEXT_KEYS)})", source=name, line=n)
        texts[key.strip()] = f"{row['title']}\n{text}" if row.get("title") else text
    if not texts:
        raise InputError("has no texts", source=name)
    return texts


def _irds_texts(name: str, kind: str, ids) -> dict[str, str]:
    from rankmeter.io.irds import import_irds
    ir_datasets = import_irds()
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InputError("no such file, and no ir_datasets dataset of this id", source=name) from None
    if not (dataset.has_queries() if kind == "queries" else dataset.has_docs()):
        raise InputError(f"this ir_datasets dataset has no {kind}", source=f"irds:{name}")
    if kind == "queries":
        return {q.query_id: q.default_text() for q in dataset.queries_iter()}
    if ids is None:
        return {d.doc_id: d.default_text() for d in dataset.docs_iter()}
    return {k: d.default_text() for k, d in dataset.docs_store().get_many(list(ids)).items()}


def label_pairs(runs=(), options=None, *, top_k: int = 10, qrels=None, pool=None) -> list[tuple[str, str]]:
    """The (query, doc) pairs to label: ``pool``'s pairs, or every doc some run ranks in its top ``top_k``
    (best rank first; the runs read under ``options``, validated :class:`~rankmeter.core.options.Options`, None
    the defaults), less those ``qrels`` judges."""
    from rankmeter.io import read_qrels
    from rankmeter.io.canonical import decode_id

    if pool is not None:
        table = read_qrels(pool, grades="real").table
    elif runs:
        from rankmeter.core.options import validate_options
        from rankmeter.fusion.methods import depth_pool_run
        table = depth_pool_run(list(runs), top_k, options if options is not None else validate_options()).table
    else:
        raise ParameterError("give runs (their top-k docs are labelled) or pool= (a pool file)")
    pairs = list(zip(map(decode_id, table.column("query").to_pylist()),
                     map(decode_id, table.column("doc").to_pylist())))
    if qrels is not None:
        judged = read_qrels(qrels, grades="real").table
        done = set(zip(map(decode_id, judged.column("query").to_pylist()),
                       map(decode_id, judged.column("doc").to_pylist())))
        pairs = [p for p in pairs if p not in done]
    return list(dict.fromkeys(pairs))  # a pool file may list a pair twice


def fill(template: str, **texts: str) -> str:
    """``template`` with each ``{name}`` of ``texts`` replaced in one pass: a text holding ``{passage}`` stays
    as it is.

    >>> fill("Q: {query} P: {passage}", query="what is {passage}?", passage="a {query}")
    'Q: what is {passage}? P: a {query}'
    """
    pattern = re.compile("|".join(re.escape("{" + name + "}") for name in texts))
    return pattern.sub(lambda m: texts[m.group(0)[1:-1]], template)


def umbrela_prompt() -> str:
    """UMBRELA's own zero-shot prompt (its ``bing`` one), read from the installed ``umbrela`` package (the
    ``prompt="umbrela"`` preset); :class:`~rankmeter.errors.MissingExtra` when umbrela is not installed."""
    from rankmeter.errors import MissingExtra
    try:
        from umbrela.prompts.template_loader import get_prompt_template
    except ImportError:
        get_prompt_template = None
    if get_prompt_template is not None:   # umbrela's YAML templates (prefix_user, rendered with str.format)
        text = get_prompt_template(None, "bing", 0).prefix_user
    else:
        try:
            from importlib.resources import files
            text = files("umbrela.prompts").joinpath("qrel_zeroshot_bing.txt").read_text(encoding="utf-8")
        except (ImportError, OSError):
            raise MissingExtra("umbrela", "umbrela", "the umbrela prompt preset") from None
    # its str.format template as a placeholder one: no few-shot examples, escaped braces made plain
    text = text.replace("{examples}", "").replace("{{", "{").replace("}}", "}")
    return text


def prompt_template(prompt) -> str:
    """The template of ``prompt``: None for :data:`PROMPT`, ``"umbrela"`` for UMBRELA's, else a file holding
    ``{query}`` and ``{passage}``."""
    if prompt is None:
        return PROMPT
    if prompt == "umbrela":
        return umbrela_prompt()
    try:
        with open(prompt, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or exc})", source=os.fspath(prompt)) from None
    missing = [p for p in ("{query}", "{passage}") if p not in text]
    if missing:
        raise InputError(f"the prompt template has no {' and no '.join(missing)}: put them where the query's "
                         "and the passage's texts go", source=os.fspath(prompt))
    return text
