#!/bin/bash
# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

# install.sh - the nova-fpga board agent on a board running a PYNQ image
# (agent/pynq/README.md): a virtualenv of its own in /opt/nova-fpga/venv
# (never PYNQ's own), the board role pinned by constraints.txt, the C data
# mover built with the board's compiler from the sources beside this script
# (agent/datamover, in the sdist) into /opt/nova-fpga/bin, the systemd unit,
# the sudoers rule for its privileged helper, udev rules for its device
# nodes, the user nova-fpga and /etc/nova-fpga.
#
#   install.sh --source SDIST|DIR|nova-fpga==VERSION --constraints FILE
#       [--python PYTHON] [--agent-conf FILE] [--trusted-ca PEM]...
#       [--root DIR] [--no-user]
#       [--enable]
#
# --root DIR installs into DIR as if it were / (a scratch root: the venv's
# scripts then name DIR's paths; for checking what the script installs).
# --enable runs systemctl daemon-reload and enables the unit (on the board,
# with --root /).
# CC names the C compiler (default gcc); the build needs it and make.

set -o errexit -o nounset -o pipefail

PYTHON=python3.11
SOURCE=
CONSTRAINTS=
AGENT_CONF=
TRUSTED_CAS=()
ROOT=/
CREATE_USER=1
ENABLE=0
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}

while [[ $# -gt 0 ]]; do
    case $1 in
        --python) PYTHON=$2; shift 2 ;;
        --source) SOURCE=$2; shift 2 ;;
        --constraints) CONSTRAINTS=$2; shift 2 ;;
        --agent-conf) AGENT_CONF=$2; shift 2 ;;
        --trusted-ca) TRUSTED_CAS+=("$2"); shift 2 ;;
        --root) ROOT=$2; shift 2 ;;
        --no-user) CREATE_USER=0; shift ;;
        --enable) ENABLE=1; shift ;;
        *) echo "install.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [[ -z "$SOURCE" || -z "$CONSTRAINTS" ]]; then
    echo "install.sh: --source and --constraints are required" >&2
    exit 2
fi

PREFIX=/opt/nova-fpga
VENV=$PREFIX/venv
MOVER=$PREFIX/bin/nova-fpga-datamover
MOVER_SRC=$HERE/../datamover
ETC=/etc/nova-fpga
USER_NAME=nova-fpga

# The project's python_requires (>=3.11); PYNQ 3 images ship Python 3.10
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        2> /dev/null; then
    echo "install.sh: $PYTHON is not Python 3.11 or newer (nova-fpga needs" \
        ">= 3.11; PYNQ 3 images have 3.10): install one beside PYNQ's and" \
        "pass --python (agent/pynq/README.md)" >&2
    exit 1
fi

# The certificate authorities whose certificates may sign the bitstreams the
# board loads ([agent] trusted_ca_dir): each a PEM certificate, checked
# before anything is installed
for ca in "${TRUSTED_CAS[@]}"; do
    if ! grep -q -- '-----BEGIN CERTIFICATE-----' "$ca" 2> /dev/null; then
        echo "install.sh: --trusted-ca $ca is not a PEM certificate" >&2
        exit 1
    fi
done

# The data mover is built here, with the board's compiler, before anything
# is installed
if [[ ! -f "$MOVER_SRC/Makefile" ]]; then
    echo "install.sh: no data mover sources in $MOVER_SRC: run the" \
        "install.sh of an unpacked sdist or a checkout" >&2
    exit 1
fi
MISSING=
command -v "${CC%% *}" > /dev/null || MISSING="the C compiler $CC"
command -v make > /dev/null || MISSING="${MISSING:+$MISSING and }make"
if [[ -n "$MISSING" ]]; then
    echo "install.sh: $MISSING not found, needed to build the data mover" \
        "(agent/datamover): on a PYNQ image (Ubuntu), sudo apt install" \
        "gcc make" >&2
    exit 1
fi

dest() {
    echo "${ROOT%/}$1"
}

BUILD_DIR=$(mktemp -d)
trap 'rm -rf "$BUILD_DIR"' EXIT
echo "data mover with $CC"
make --no-print-directory -C "$MOVER_SRC" CC="$CC" BUILD="$BUILD_DIR" \
    "$BUILD_DIR/nova-fpga-datamover"
install -D -m 0755 "$BUILD_DIR/nova-fpga-datamover" "$(dest $MOVER)"

echo "virtualenv $(dest $VENV) with $("$PYTHON" --version)"
"$PYTHON" -m venv "$(dest $VENV)"
"$(dest $VENV)/bin/python" -m pip install --quiet --no-input \
    --disable-pip-version-check -c "$CONSTRAINTS" "$SOURCE"

# The unit, the sudoers and udev rules and the sample, from the sdist's files,
# with the venv's paths for the system's
install -d "$(dest /etc/systemd/system)" "$(dest /etc/sudoers.d)" \
    "$(dest /etc/udev/rules.d)" "$(dest $ETC)"
sed -e "s|/usr/bin/nova-fpga-agent --config-file $ETC/agent.conf|$VENV/bin/nova-fpga-agent --config-file $ETC/agent.conf --config-file $ETC/pynq.conf|" \
    "$HERE/../systemd/nova-fpga-agent.service" \
    > "$(dest /etc/systemd/system/nova-fpga-agent.service)"
# the privileged helper is the venv's: sudo's secure_path does not have it,
# so the agent names it (helper_command) and the rule admits exactly that
# and the data mover built above (read after agent.conf: this one wins)
cat > "$(dest $ETC/pynq.conf)" <<CONF
# written by agent/pynq/install.sh: the venv's privileged helper and the
# data mover it built
[nova_fpga_agent_privileged]
helper_command = sudo $VENV/bin/privsep-helper --config-file $ETC/agent.conf --config-file $ETC/pynq.conf

[dataplane]
mover_binary = $MOVER
# the mover's socket and counters: the unit's RuntimeDirectory
runtime_dir = /run/nova-fpga
CONF
sed -e "s|/usr/bin/privsep-helper ^--config-file /etc/nova-fpga/agent\\\\.conf |$VENV/bin/privsep-helper ^--config-file /etc/nova-fpga/agent\\\\.conf --config-file /etc/nova-fpga/pynq\\\\.conf |" \
    "$HERE/../etc/sudoers.d/nova-fpga-agent" \
    > "$(dest /etc/sudoers.d/nova-fpga-agent)"
chmod 0440 "$(dest /etc/sudoers.d/nova-fpga-agent)"
install -m 0644 "$HERE/../udev/70-nova-fpga.rules" \
    "$(dest /etc/udev/rules.d/70-nova-fpga.rules)"
cp "$HERE/../etc/agent.conf.sample" "$(dest $ETC/agent.conf.sample)"
if [[ -n "$AGENT_CONF" ]]; then
    install -m 0640 "$AGENT_CONF" "$(dest $ETC/agent.conf)"
fi
# the board's trust store: read by the agent at every signed load
install -d -m 0755 "$(dest $ETC/trusted-ca)"
for ca in "${TRUSTED_CAS[@]}"; do
    install -m 0644 "$ca" "$(dest $ETC/trusted-ca/$(basename "$ca"))"
done

if [[ $CREATE_USER == 1 ]]; then
    if ! getent passwd $USER_NAME > /dev/null && \
            ! grep -q "^$USER_NAME:" "$(dest /etc/passwd)" 2> /dev/null; then
        useradd --root "$ROOT" --system --user-group \
            --home-dir /var/lib/nova-fpga --no-create-home \
            --shell /usr/sbin/nologin $USER_NAME
    fi
    # the agent reads its configuration (its bus password), no one else
    if [[ "$ROOT" == / && -e $ETC/agent.conf ]]; then
        chown root:$USER_NAME $ETC/agent.conf
    fi
fi

if [[ $ENABLE == 1 ]]; then
    systemctl daemon-reload
    udevadm control --reload-rules || true
    systemctl enable --now nova-fpga-agent.service
fi
echo "installed: $(dest $VENV)/bin/nova-fpga-agent, $(dest $MOVER), unit," \
    "sudoers rule, udev rules, $(dest $ETC)"
