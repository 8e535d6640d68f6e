"""scikit-learn's model (:mod:`rankmeter.compat.sklearn.model`): its ranking functions' conventions."""
