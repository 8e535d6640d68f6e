"""docs/training.md's examples run: its doctests, and its Lightning and JAX blocks as written."""
from __future__ import annotations

import doctest
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1].parent / "docs" / "training.md"


def _block(marker: str) -> str:
    """The page's ```python block that contains ``marker``."""
    for block in re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S):
        if marker in block:
            return block
    raise AssertionError(f"no python block with {marker!r} in {PAGE.name}")


def test_doctests_of_the_page():
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15 and result.failed == 0


def test_lightning_module_validates():
    import lightning as L
    import torch

    namespace: dict = {}
    exec(_block("class Ranker"), namespace)
    model = namespace["Ranker"]()
    g = torch.Generator().manual_seed(0)
    batches = [(torch.randn(60, 16, generator=g), torch.randint(0, 3, (60,), generator=g),
                torch.arange(6).repeat_interleave(10) + 6 * i) for i in range(3)]
    trainer = L.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                        enable_model_summary=False, enable_checkpointing=False)
    loader = torch.utils.data.DataLoader(batches, batch_size=None)   # each item one batch of whole queries
    [logged] = trainer.validate(model, dataloaders=loader, verbose=False)
    model.val_ndcg.reset()
    with torch.no_grad():
        for features, labels, ids in batches:
            model.val_ndcg.update(model.net(features).squeeze(-1), labels, indexes=ids)
    assert abs(logged["val_ndcg@10"] - float(model.val_ndcg.compute())) < 1e-6


def test_jax_block():
    namespace: dict = {}
    exec(_block("jax.numpy"), namespace)
    values = namespace["evaluate"](namespace["scores"], namespace["targets"], ["AP", "nDCG@2"])
    assert [round(float(v), 4) for v in values["AP"]] == [0.8333, 0.5]
