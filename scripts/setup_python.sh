#!/usr/bin/env bash
# Creates .venv with the Python oracles the tests compare quantir against (pytrec_eval, scipy).
# Everything comes from PyPI. Idempotent: a second run with nothing changed does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
req=scripts/oracle/requirements.txt
stamp=.venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && .venv/bin/python -c "import pytrec_eval" 2>/dev/null; then
    exit 0
fi
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req"
echo "$want" > "$stamp"
echo "python oracles installed in .venv: $(.venv/bin/python -c 'import pytrec_eval, scipy; print("pytrec_eval", getattr(pytrec_eval, "__version__", "0.5.11"), "scipy", scipy.__version__)')"
