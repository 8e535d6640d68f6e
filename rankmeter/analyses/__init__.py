"""Analyses over the core's per-query values and ranked rows: significance tests (:mod:`.stats`),
meta-evaluation (:mod:`.meta`), fusion and pooling (:mod:`.fusion`, :mod:`.pooled`), run checks
(:mod:`.check`), ties (:mod:`.ties`), judged coverage (:mod:`.judged`), beyond-accuracy and
recommender inputs (:mod:`.beyond`, :mod:`.recsys`) and run utilities (:mod:`.runs`).
"""
