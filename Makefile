# The project's commands. Each one creates the environment (.venv) first if it is missing.
#   make book      build the whole book into _build/html (re-executes stale chapters first);
#                  REPO_URL=https://github.com/<owner>/<repo> adds the repository and launch buttons
#   make test      run every test: unit tests of lib, the nbval regression of book/, the site check
#   make baseline  re-execute chapters into book/ on purpose (CHAPTERS="id ..." for some; default all)
#   make lab       open JupyterLab on the notebooks with the project's environment as kernel
PY := .venv/bin/python
JB_FLAGS := -W -n --keep-going $(if $(CI),--all,)
# REPO_URL=https://github.com/<owner>/<repo>: build with the repository and launch buttons pointing there
REPO_URL ?=

.PHONY: setup book test baseline lab clean

setup:
	@bash scripts/setup.sh

book: setup
	$(PY) -m lib build-chapters
	$(PY) -m lib results
	$(if $(REPO_URL),mkdir -p .cache && $(PY) scripts/site_config.py "$(REPO_URL)" > .cache/_config.yml,)
	.venv/bin/jupyter-book build $(JB_FLAGS) $(if $(REPO_URL),--config .cache/_config.yml,) .
	@echo "the site is in _build/html (open _build/html/index.html)"

test: setup
	@bash scripts/test.sh

baseline: setup
	$(PY) -m lib baseline $(CHAPTERS)
	$(PY) -m lib results

lab: setup
	.venv/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root,)

clean:
	rm -rf _build runs .cache
