"""TorchMetrics' model (:mod:`rankmeter.compat.torchmetrics.model`); its drop-in is :mod:`rankmeter.tensor.torchmetrics`."""
