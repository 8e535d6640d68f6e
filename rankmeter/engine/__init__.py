"""The low-level engine every layer stands on: exact ids, hashed keys, batches, segments, memory, parameters.

Nothing here imports io/, measures/ or core/; they import it.
"""
