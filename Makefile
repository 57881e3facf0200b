bench:
	python bench/run.py

bench-big:
	python bench/run.py --big

bench-replay:
	python bench/replay.py

test:
	python -m pytest

golden:
	python -m pipeline.golden

schemas:
	python -m pipeline.model.schema
