"""Print a copy of _config.yml with the repository and launch buttons on: ``site_config.py URL [BRANCH]``.

Used by ``make book REPO_URL=...`` (the one setting that names the published repository); without it the site
is built from _config.yml as is, with no repository or launch button.
"""
import sys
from pathlib import Path

import yaml

if len(sys.argv) < 2 or not sys.argv[1].startswith(("https://", "http://")):
    sys.exit("usage: site_config.py https://github.com/<owner>/<repo> [branch]  (REPO_URL must be an http(s) URL)")
root = Path(__file__).resolve().parents[1]
cfg = yaml.safe_load((root / "_config.yml").read_text())
cfg["repository"] = {"url": sys.argv[1], "branch": sys.argv[2] if len(sys.argv) > 2 else "main"}
cfg["launch_buttons"] = {"notebook_interface": "classic", "binderhub_url": "https://mybinder.org",
                         "colab_url": "https://colab.research.google.com"}
cfg.setdefault("html", {})["use_repository_button"] = True
yaml.safe_dump(cfg, sys.stdout, sort_keys=False, allow_unicode=True)
