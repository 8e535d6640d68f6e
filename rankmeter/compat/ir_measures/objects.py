"""ir_measures' measure objects (``nDCG@10``, ``AP(rel=2)``, ``Judged@10``) and what each means here.

The objects print, compare and hash as ir_measures' own do (``repr`` is the key), so
``result[nDCG@10]`` finds a value whichever library made the object. :func:`to_rankmeter`
reads an object of either library as the rankmeter measure that gives ir_measures' numbers:

* ``ERR@k`` is the TREC Web track's gdeval ERR, the provider ir_measures calls for it: grades
  capped by a fixed maximum of 4, no patience parameter, so ``ERR(max_grade=4)@k`` here
  (rankmeter's own ``ERR@k`` takes the qrels' highest grade as the maximum);
* ``SetF(beta=b)`` is trec_eval's ``set_F.b`` (pytrec_eval's provider), whose parameter is
  beta squared: ``F(beta=sqrt(b))`` here (the drop-in's engine computes it from set precision and
  recall as trec_eval does, to the last bit);
* everything else reads through :func:`rankmeter.measures.names.resolve_name`.

That reading is :func:`rankmeter.compat.ir_measures.model.measure_of`, registered with the measure names
(:func:`rankmeter.measures.names.measure_of_object`), which reads ir_measures' own objects with it; this
module's objects say it through their ``to_rankmeter()``.

>>> nDCG, AP, ERR, SetF = (REGISTRY[name] for name in ("nDCG", "AP", "ERR", "SetF"))
>>> str(nDCG@10), repr(AP(rel=2)@100), str(REGISTRY["SetRelP"]), str(REGISTRY["NumRelRet"])
('nDCG@10', 'AP(rel=2)@100', 'SetP(relative=True)', 'NumRet(rel=1)')
>>> str(to_rankmeter(ERR@20)), str(to_rankmeter(SetF(beta=4.0)))
('ERR(max_grade=4)@20', 'F(beta=2)')
"""
from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from rankmeter.errors import MeasureError
from rankmeter.measures.names import measure_of_object

#: the drop-in's calculation functions by name, registered by rankmeter.compat.ir_measures as it loads
CALCULATION: dict[str, Any] = {}

__all__ = ["REGISTRY", "SUMMED", "UNFILLED", "MeanAgg", "Measure", "ParamInfo", "SumAgg", "is_measure_object",
           "params_of", "parse_measure", "to_rankmeter"]


class ParamInfo(NamedTuple):
    """A parameter of an ir_measures measure: type, whether it must be given, its default."""

    dtype: Any = None
    required: bool = False
    default: Any = None
    desc: str = ""


class Measure:
    """An ir_measures measure object: name and parameters; ``@`` sets the cutoff (``IPrec``: the recall)."""

    __name__ = "Measure"
    NAME: str = "Measure"
    AT_PARAM = "cutoff"
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {}
    DEFAULT = 0.0  # the value of a judged query the run does not answer

    def __init__(self, **params):
        self.params = params

    def __call__(self, **params) -> Measure:
        return type(self)(**{**self.params, **params})

    def __matmul__(self, value) -> Measure:
        return self(**{self.AT_PARAM: value})

    def __getitem__(self, key):
        return self.params.get(key, self.SUPPORTED_PARAMS[key].default)

    def __repr__(self) -> str:
        shown = [f"{k}={_param_repr(v)}" for k, v in self.params.items()
                 if k != self.AT_PARAM and v != self.SUPPORTED_PARAMS.get(k, ParamInfo()).default]
        out = self.__name__ + (f"({','.join(shown)})" if shown else "")
        return out + (f"@{self.params[self.AT_PARAM]}" if self.AT_PARAM in self.params else "")

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return is_measure_object(other) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def to_rankmeter(self):
        """The rankmeter measure this object means (what :func:`rankmeter.evaluate` scores for it)."""
        return to_rankmeter(self)

    def validate_params(self) -> None:
        """Raise MeasureError for a parameter the measure does not take or a required one left out."""
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise MeasureError(f"{self!r}: unsupported parameter(s) {unknown}; it takes "
                               f"{sorted(self.SUPPORTED_PARAMS) or 'none'}")
        missing = [k for k, p in self.SUPPORTED_PARAMS.items() if p.required and k not in self.params]
        if missing:
            raise MeasureError(f"{self!r}: give {', '.join(missing)}, e.g. {self.__name__}"
                               + ("@10" if missing == [self.AT_PARAM] else f"({missing[0]}=...)"))

    # ir_measures' methods on a measure: the drop-in's functions, which rankmeter.compat.ir_measures hands
    # over when it loads (every measure object is reached through it), so this module stays below it
    def iter_calc(self, qrels, run):
        return CALCULATION["iter_calc"]([self], qrels, run)

    def calc_aggregate(self, qrels, run):
        return CALCULATION["calc_aggregate"]([self], qrels, run)[self]

    def calc(self, qrels, run):
        aggregated, per_query = CALCULATION["calc"]([self], qrels, run)
        return CALCULATION["CalcResults"](aggregated[self], per_query)

    def evaluator(self, qrels):
        return CALCULATION["evaluator"]([self], qrels)

    def aggregator(self):
        """ir_measures' aggregator of this measure over queries: a sum for NumQ, NumRel, NumRet, else a mean."""
        return SumAgg() if self.NAME in SUMMED else MeanAgg()


class MeanAgg:
    """The mean of the values added; ``default`` (NaN) when none was."""

    def __init__(self, default=float("nan")):
        self.sum, self.count, self.default = 0.0, 0, default

    def add(self, value) -> None:
        self.sum += value
        self.count += 1

    def result(self):
        return self.sum / self.count if self.count else self.default


class SumAgg:
    """The sum of the values added (the integer 0 when none was, as ir_measures gives)."""

    def __init__(self):
        self.sum = 0

    def add(self, value) -> None:
        self.sum += value

    def result(self):
        return self.sum


def _param_repr(value) -> str:
    if isinstance(value, dict):  # ir_measures prints a gain map sorted, without spaces
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
    return repr(value)


def is_measure_object(obj) -> bool:
    """An ir_measures measure object, of this module or of ir_measures itself."""
    return isinstance(obj, Measure) or type(obj).__module__.startswith("ir_measures.")


_CUT, _CUT_REQ = ParamInfo(int), ParamInfo(int, True)
_REL, _JUDGED = ParamInfo(int, default=1), ParamInfo(bool, default=False)
_MAXREL, _MINREL, _T = ParamInfo(int, True), ParamInfo(int, default=0), ParamInfo(float, default=1.0)
_ALPHA = ParamInfo(float, default=0.5)

#: ir_measures 0.4's measures: name -> parameters (the ``@`` parameter is ``cutoff`` except for IPrec)
_SPECS: dict[str, dict[str, ParamInfo]] = {
    "Accuracy": {"cutoff": _CUT, "rel": _REL},
    "AP": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "AP_IA": {"rel": _REL, "judged_only": _JUDGED},
    "BPM": {"cutoff": _CUT_REQ, "T": _T, "min_rel": _MINREL, "max_rel": _MAXREL},
    "Bpref": {"rel": _REL},
    "Compat": {"p": ParamInfo(float, default=0.95), "normalize": ParamInfo(bool, default=True)},
    "ERR": {"cutoff": _CUT},
    "ERR_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "infAP": {"rel": _REL},
    "INSQ": {"T": _T, "min_rel": _MINREL, "max_rel": _MAXREL},
    "INST": {"T": _T, "min_rel": _MINREL, "max_rel": _MAXREL},
    "IPrec": {"recall": ParamInfo(float, True), "rel": _REL, "judged_only": _JUDGED},
    "Judged": {"cutoff": _CUT},
    "NERR8": {"cutoff": _CUT_REQ, "min_rel": _MINREL, "max_rel": _MAXREL},
    "NERR9": {"cutoff": _CUT_REQ, "min_rel": _MINREL, "max_rel": _MAXREL},
    "NERR10": {"p": ParamInfo(float, default=0.9), "min_rel": _MINREL, "max_rel": _MAXREL},
    "NERR11": {"T": _T, "min_rel": _MINREL, "max_rel": _MAXREL},
    "NRBP": {"rel": _REL, "alpha": _ALPHA, "beta": ParamInfo(float, default=0.5)},
    "nNRBP": {"rel": _REL, "alpha": _ALPHA, "beta": ParamInfo(float, default=0.5)},
    "NumQ": {},
    "NumRel": {"rel": _REL},
    "NumRet": {"rel": ParamInfo(int)},
    "P": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "P_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "R": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "RBP": {"cutoff": _CUT, "p": ParamInfo(float, default=0.8), "rel": ParamInfo(int)},
    "Rprec": {"rel": _REL, "judged_only": _JUDGED},
    "RR": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
    "SDCG": {"cutoff": _CUT_REQ, "dcg": ParamInfo(str, default="log2"), "min_rel": _MINREL, "max_rel": _MAXREL},
    "SetAP": {"rel": _REL, "judged_only": _JUDGED},
    "SetF": {"rel": _REL, "beta": ParamInfo(float, default=1.0), "judged_only": _JUDGED},
    "SetP": {"rel": _REL, "relative": ParamInfo(bool, default=False), "judged_only": _JUDGED},
    "SetR": {"rel": _REL},
    "StRecall": {"cutoff": _CUT, "rel": _REL},
    "Success": {"cutoff": _CUT_REQ, "rel": _REL, "judged_only": _JUDGED},
    "alpha_DCG": {"cutoff": _CUT, "rel": _REL, "alpha": _ALPHA, "judged_only": _JUDGED},
    "alpha_nDCG": {"cutoff": _CUT, "rel": _REL, "alpha": _ALPHA, "judged_only": _JUDGED},
    "nDCG": {"cutoff": _CUT, "dcg": ParamInfo(str, default="log2"), "gains": ParamInfo(dict),
             "judged_only": _JUDGED},
    "nERR_IA": {"cutoff": _CUT, "rel": _REL, "judged_only": _JUDGED},
}
#: summed over queries rather than averaged (ir_measures' SumAgg)
SUMMED = {"NumQ", "NumRel", "NumRet"}
#: reported only for the queries where they are defined, never filled with DEFAULT (ir_measures' accuracy provider)
UNFILLED = {"Accuracy"}

#: every name ir_measures registers -> its measure object (aliases share the object's class)
REGISTRY: dict[str, Measure] = {}
for _name, _params in _SPECS.items():
    _cls = type(f"_{_name}", (Measure,), {"__name__": _name, "NAME": _name, "SUPPORTED_PARAMS": _params,
                                           "AT_PARAM": "recall" if _name == "IPrec" else "cutoff"})
    REGISTRY[_name] = _cls()
for _alias, _name in {"MAP": "AP", "MAP_IA": "AP_IA", "BPref": "Bpref", "\u03b1_DCG": "alpha_DCG",
                      "\u03b1_nDCG": "alpha_nDCG", "NDCG": "nDCG", "MRR": "RR", "Precision": "P", "Recall": "R",
                      "RPrec": "Rprec"}.items():
    REGISTRY[_alias] = REGISTRY[_name]
REGISTRY["NumRelRet"] = REGISTRY["NumRet"](rel=1)
REGISTRY["SetRelP"] = REGISTRY["SetP"](relative=True)
globals().update(REGISTRY)  # ir_measures.measures.AP, ...
BaseMeasure = Measure  # ir_measures' older name


def register(measure: Measure, aliases=(), name: str | None = None) -> dict:
    """Add ``measure`` to :data:`REGISTRY` under its name and ``aliases`` (ir_measures' ``measures.register``)."""
    for key in (name or measure.__name__, *aliases):
        if key in REGISTRY:
            raise MeasureError(f"measure {key!r} is registered already")
        REGISTRY[key] = measure
    return REGISTRY


def params_of(obj) -> tuple[str, dict]:
    """(name, every parameter with its default filled in) of an ir_measures measure object (of ir_measures
    or of this module), read without importing ir_measures."""
    name = getattr(obj, "NAME", None) or type(obj).__name__
    supported = getattr(obj, "SUPPORTED_PARAMS", {})
    params = {}
    for key, info in supported.items():
        default = getattr(info, "default", None)
        params[key] = obj.params.get(key, None if type(default).__name__ == "object" else default)
    return name, params


def to_rankmeter(obj):
    """The rankmeter :class:`~rankmeter.measures.Measure` giving ir_measures' numbers for ``obj`` (an object of
    either library; this module's are checked first: a parameter they do not take is an error)."""
    if isinstance(obj, Measure):
        obj.validate_params()
    return measure_of_object(obj)


def parse_measure(text) -> Measure:
    """``"nDCG(dcg='exp-log2')@10"`` -> the measure object (a measure object is returned as given)."""
    import ast
    if is_measure_object(text):
        return text
    try:
        node = ast.parse(str(text).replace("\u03b1", "alpha"), mode="eval").body
    except SyntaxError:
        raise MeasureError(f"cannot read measure {text!r}; write Name(k1=v1, k2=v2)@cutoff") from None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = ast.literal_eval(node.right), node.left
    params = {}
    if isinstance(node, ast.Call) and not node.args:
        params = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
        node = node.func
    if not isinstance(node, ast.Name) or node.id not in REGISTRY:
        raise MeasureError(f"cannot read measure {text!r}: the ir_measures measures are {', '.join(REGISTRY)}")
    if "cutoff" in params and at is not None:
        del params["cutoff"]
    measure = REGISTRY[node.id](**params)
    return measure if at is None else measure @ at
