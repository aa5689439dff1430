# Sourced by the installers of the tests' Python tooling (scripts/evm-node/install.sh,
# scripts/kms-node/install.sh). Defines:
#     install_pinned_venv NAME VENV REQUIREMENTS CHECK...
# which makes VENV from REQUIREMENTS (pinned, `pip install --requirement`) unless a venv whose stamp
# matches REQUIREMENTS is already there, then runs CHECK... with the venv's python (e.g.
# `-c "import ministack"`) and stamps it. Several test processes may ask at once: one installs under
# a flock, the others wait and then find it current. PYTHON picks the interpreter (python3).
install_pinned_venv() {
    local name="$1" venv="$2" requirements="$3"
    shift 3
    local stamp="$venv/.signerkit-requirements" python="${PYTHON:-python3}"
    _pinned_venv_current() { [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$requirements" "$stamp"; }
    _pinned_venv_current && return 0
    mkdir -p "$(dirname "$venv")"
    if command -v flock >/dev/null; then
        exec 9>"$venv.lock"
        flock 9
        _pinned_venv_current && return 0
    fi
    command -v "$python" >/dev/null || { echo "$name install: $python not found" >&2; return 1; }
    echo "$name install: creating $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv" || {
        echo "$name install: '$python -m venv' failed (Debian: apt-get install python3-venv)" >&2
        return 1
    }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --requirement "$requirements"
    "$venv/bin/python" "$@" || { echo "$name install: the installed packages do not load" >&2; return 1; }
    cp "$requirements" "$stamp"
    echo "$name install: done" >&2
}
