"""The generation backends, one module each, behind `generation.base.Backend`. Nothing here is imported until a
model name picks its backend (`generation/engine.py`), so a run loads only the libraries its backend needs."""
