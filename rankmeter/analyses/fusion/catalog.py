"""The fusion methods and normalisations by ranx's names, with their parameter defaults (no numpy here,
so the command line can list them without loading the engine)."""

#: method -> (parameter defaults, whether it reads ranks instead of scores)
METHODS: dict[str, tuple[dict, bool]] = {
    "sum": ({}, False), "mnz": ({}, False), "gmnz": ({"gamma": 1.0}, False), "anz": ({}, False),
    "max": ({}, False), "min": ({}, False), "med": ({}, False), "wsum": ({"weights": None}, False),
    "wmnz": ({"weights": None}, False), "rrf": ({"k": 60}, True), "rbc": ({"phi": 0.8}, True),
    "isr": ({}, True), "log_isr": ({}, True), "logn_isr": ({"sigma": 0.01}, True), "bordafuse": ({}, True),
    "w_bordafuse": ({"weights": None}, True), "condorcet": ({}, True), "w_condorcet": ({"weights": None}, True),
    "mixed": ({"weights": None}, False),
    # trained on judged queries (rankmeter.analyses.fusion.trained): their tables come from training or params
    "posfuse": ({"probs": None}, True), "probfuse": ({"probs": None}, True), "segfuse": ({"probs": None}, False),
    "slidefuse": ({"probs": None, "w": 1}, True), "bayesfuse": ({"log_odds": None}, True),
    "mapfuse": ({"map_scores": None}, True),
}

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
