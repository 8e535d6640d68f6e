"""The gate's report in four forms: text (a terminal), markdown (a pull-request comment), JSON (scripts; the
shape :meth:`rankmeter.gate.checks.GateResult.to_dict` documents) and JUnit XML (CI test reports)."""
from __future__ import annotations

import json
import math

from rankmeter.core.numbers import format_number
from rankmeter.report.markup import format_p

__all__ = ["gate_report", "FORMATS"]

FORMATS = ("text", "markdown", "json", "junit")


def _num(x, decimals: int = 4, sign: bool = False) -> str:
    return format_number(x, decimals, sign=sign, undefined="n/a")


def _p(p) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return format_p(p)


def _scope(check: dict) -> str:
    return "all queries" if check["slice"] is None else f"slice {check['slice']}"


def _headline(result) -> str:
    if result.refused:
        return f"refused: {result.refused}"
    bad = [f"{c['measure']} ({_scope(c)})" for c in result.checks if c["regression"]]
    if bad:
        return "regression: " + ", ".join(bad)
    return f"passed: no regression beyond the margin on {len(result.checks)} check(s)"


def _settings(result) -> str:
    s = result.settings
    level = round(100 * (1 - 2 * s["alpha"]))
    runs = len(result.baseline.get("runs", []))
    return (f"margin {s['margin']}, one-sided {s['test']} test, {s['correction']} correction, alpha {s['alpha']} "
            f"(intervals at {level}%), minimum detectable drop at {round(100 * s['power'])}% power; baseline of "
            f"{runs} run(s) made {result.baseline.get('created', '?')} by rankmeter {result.baseline.get('rankmeter', '?')}")


def _rows(result, decimals: int) -> tuple[list[str], list[list[str]]]:
    level = round(100 * (1 - 2 * result.settings["alpha"]))
    header = ["measure", "scope", "queries", "baseline", "new", "difference", f"{level}% interval", "p adjusted",
              "d_z", "detectable drop", "verdict"]
    rows = [[c["measure"], _scope(c), str(c["queries"]), _num(c["baseline"], decimals), _num(c["new"], decimals),
             _num(c["difference"], decimals, sign=True),
             f"[{_num(c['low'], decimals, sign=True)}, {_num(c['high'], decimals, sign=True)}]",
             _p(c["p_adjusted"]), _num(c["effect_size"], 2, sign=True), _num(c["mde"], decimals),
             "REGRESSION" if c["regression"] else "ok"] for c in result.checks]
    return header, rows


def _text(result, decimals: int) -> str:
    lines = [f"rankmeter gate: {_headline(result)}", _settings(result)]
    if result.changes:
        lines.append("accepted changes: " + "; ".join(result.changes))
    if result.refused:
        return "\n".join(lines) + "\n"
    header, rows = _rows(result, decimals)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines.append("")
    for row in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    lines += _details(result, decimals, bullet="  ")
    return "\n".join(lines) + "\n"


def _details(result, decimals: int, bullet: str) -> list[str]:
    lines = []
    for c in result.checks:
        if c["slice"] is None and math.isfinite(c["mde"]) and c["mde"] > 2 * result.settings["margin"]:
            lines.append(f"{bullet}{c['measure']}: these {c['queries']} queries detect a drop only from "
                         f"{_num(c['mde'], decimals)} at {round(100 * result.settings['power'])}% power; a smaller "
                         f"regression beyond the margin {result.settings['margin']} may pass unseen")
    for measure, worst in result.worst.items():
        if worst:
            shown = ", ".join(f"{w['query']} {_num(w['baseline'], decimals)} -> {_num(w['new'], decimals)}"
                              for w in worst)
            lines.append(f"{bullet}most dropped queries, {measure}: {shown}")
    for measure, sd in result.noise.items():
        lines.append(f"{bullet}run-to-run noise of the baseline's mean {measure}: sd {_num(sd, decimals)}")
    u = result.unjudged
    if u:
        lines.append(f"{bullet}judged share of the top {u['depth']}: baseline {_num(u['baseline'], 3)}, new "
                     f"{_num(u['new'], 3)}; {u['queries_with_more_unjudged']} queries have more unjudged documents "
                     "at the top than the baseline had (unjudged documents count as not relevant: they can hide a "
                     "regression or an improvement)")
    return lines


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(result, decimals: int) -> str:
    mark = "✅" if result.passed and not result.refused else ("⚠️" if result.refused else "❌")
    lines = [f"### {mark} rankmeter gate — {_markdown_cell(_headline(result))}", "", _markdown_cell(_settings(result))]
    if result.changes:
        lines += ["", "Accepted changes: " + _markdown_cell("; ".join(result.changes))]
    if not result.refused:
        header, rows = _rows(result, decimals)
        lines += ["", "| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * 8 + ["---"]) + "|"]
        for row in rows:
            if row[-1] == "REGRESSION":
                row = row[:-1] + ["**REGRESSION**"]
            lines.append("| " + " | ".join(_markdown_cell(c) for c in row) + " |")
        details = _details(result, decimals, bullet="- ")
        if details:
            lines += ["", "<details><summary>Queries, noise and unjudged documents</summary>", ""]
            lines += [_markdown_cell(d) for d in details] + ["", "</details>"]
    return "\n".join(lines) + "\n"


def _junit(result, decimals: int) -> str:
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="rankmeter gate")
    suite = ET.SubElement(suites, "testsuite", name="rankmeter gate", tests=str(max(len(result.checks), 1)),
                          failures=str(sum(c["regression"] for c in result.checks)),
                          errors="1" if result.refused else "0")
    if result.refused:
        case = ET.SubElement(suite, "testcase", classname="rankmeter.gate", name="comparable with the baseline")
        ET.SubElement(case, "error", message=result.refused, type="refused").text = result.refused
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=f"rankmeter.gate.{c['measure']}",
                             name=f"{c['measure']} ({_scope(c)})", time="0")
        detail = (f"baseline {_num(c['baseline'], decimals)}, new {_num(c['new'], decimals)}, difference "
                  f"{_num(c['difference'], decimals, sign=True)} [{_num(c['low'], decimals, sign=True)}, "
                  f"{_num(c['high'], decimals, sign=True)}], p adjusted {_p(c['p_adjusted'])}, detectable drop "
                  f"{_num(c['mde'], decimals)}")
        if c["regression"]:
            ET.SubElement(case, "failure", message=f"regression beyond the margin {result.settings['margin']}",
                          type="regression").text = detail
        else:
            ET.SubElement(case, "system-out").text = detail
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def gate_report(result, format: str = "text", *, decimals: int = 4) -> str:
    """The gate's ``result`` in ``format`` (one of :data:`FORMATS`)."""
    if format == "json":  # NaN (a slice with fewer than two queries has no test) is null, never NaN
        return json.dumps(_finite(result.to_dict()), indent=2, allow_nan=False) + "\n"
    return {"text": _text, "markdown": _markdown, "junit": _junit}[format](result, decimals)


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
