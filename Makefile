# Every target is a command, not a file: without .PHONY, `make bench` found the folder bench/
# up to date and ran nothing.
.PHONY: bench bench-big bench-replay test golden schemas

bench:
	python bench/run.py

bench-big:
	python bench/run.py --big

bench-replay:
	python bench/replay.py

test:
	python -m pytest

golden:
	python -m pipeline.golden table steal arneson --out tests/golden

schemas:
	python -m pipeline.model.schema
