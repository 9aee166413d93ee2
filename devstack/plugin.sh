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

# plugin.sh - DevStack plugin for nova-fpga: Zynq boards as compute hosts.
#
# DevStack's plugin contract: doc/source/plugins.rst.  What it writes into
# nova.conf, placement.conf, glance-api.conf, neutron's ml2_conf.ini and the
# agents' files
# comes from nova_fpga.deployment (through nova-fpga-config), as the demo
# cloud's does.

NOVA_FPGA_BIN=$(get_python_exec_prefix)

# The boards nova-compute proxies, comma-separated
function nova_fpga_boards {
    if [[ -n "$NOVA_FPGA_REAL_BOARDS" ]]; then
        echo "$NOVA_FPGA_REAL_BOARDS"
        return
    fi
    local names=()
    local n
    for ((n = 0; n < NOVA_FPGA_EMULATED_BOARDS; n++)); do
        names+=("zynq$n")
    done
    local IFS=,
    echo "${names[*]}"
}

# The agents' bus as user (rabbit://user:password@host:port/vhost, the TLS
# listener's port with NOVA_FPGA_TLS); a board's own vhost when a board is
# given
function nova_fpga_transport_url {
    local user=$1
    local password=$2
    local board=${3:-}
    local vhost=$NOVA_FPGA_VHOST
    if [[ -n "$board" ]]; then
        vhost=$(nova_fpga_board_vhost $board)
    fi
    local port=5672
    if [[ "$NOVA_FPGA_TLS" == "True" ]]; then
        port=$(nova_fpga_tls_port)
    fi
    echo "rabbit://$user:$password@$RABBIT_HOST:$port/$vhost"
}

function nova_fpga_tls_port {
    echo "${NOVA_FPGA_TLS_PORT:-$("$NOVA_FPGA_BIN/nova-fpga-config" rabbitmq-tls-port)}"
}

# The --ssl-* arguments of nova-fpga-config for a certificate of DevStack's
# CA (nova-compute's, a board's), none without NOVA_FPGA_TLS
function nova_fpga_tls_args {
    if [[ "$NOVA_FPGA_TLS" != "True" ]]; then
        return
    fi
    echo "--ssl-ca-file $INT_CA_DIR/ca-chain.pem" \
        "--ssl-cert-file $INT_CA_DIR/$1.crt" \
        "--ssl-key-file $INT_CA_DIR/private/$1.key"
}

# The agents' bus over TLS: DevStack's CA (lib/tls) issues RabbitMQ's
# certificate (for the host the URLs name) and a client certificate for
# nova-compute and for each board; RabbitMQ gets a TLS listener that
# admits only clients with a certificate of that CA, and is restarted
function configure_nova_fpga_tls {
    local boards=$1
    if [[ ! -r $INT_CA_DIR/ca-chain.pem ]]; then
        configure_CA
        init_CA
    fi
    local alt="DNS:$RABBIT_HOST"
    if is_ipv4_address "$RABBIT_HOST"; then
        alt="IP:$RABBIT_HOST"
    fi
    make_cert $INT_CA_DIR nova-fpga-rabbitmq "$DEVSTACK_HOSTNAME" "$alt"
    make_cert $INT_CA_DIR nova-fpga-compute nova-compute
    local board
    for board in ${boards//,/ }; do
        make_cert $INT_CA_DIR nova-fpga-$board $board
    done
    # the broker's copies, readable by RabbitMQ
    local dir
    dir=$(dirname $NOVA_FPGA_RABBITMQ_CONF)/nova-fpga
    sudo install -d -m 0750 -g $NOVA_FPGA_RABBITMQ_GROUP $dir
    sudo install -m 0644 $INT_CA_DIR/ca-chain.pem $dir/ca.pem
    sudo install -m 0644 $INT_CA_DIR/nova-fpga-rabbitmq.crt $dir/cert.pem
    sudo install -m 0640 -g $NOVA_FPGA_RABBITMQ_GROUP \
        $INT_CA_DIR/private/nova-fpga-rabbitmq.key $dir/key.pem
    # rabbitmq.conf: ours between markers, replaced on a second run
    local begin="# nova-fpga: the agents' TLS listener (DevStack plugin)"
    local end="# nova-fpga: end"
    local conf
    conf=$(mktemp)
    if sudo test -r $NOVA_FPGA_RABBITMQ_CONF; then
        sudo cat $NOVA_FPGA_RABBITMQ_CONF | \
            sed "/^$begin\$/,/^$end\$/d" > $conf
    fi
    {
        echo "$begin"
        "$NOVA_FPGA_BIN/nova-fpga-config" rabbitmq-tls \
            --listener "$(nova_fpga_tls_port)" --ssl-ca-file $dir/ca.pem \
            --ssl-cert-file $dir/cert.pem --ssl-key-file $dir/key.pem
        echo "$end"
    } >> $conf
    sudo install -m 0644 $conf $NOVA_FPGA_RABBITMQ_CONF
    rm -f $conf
    restart_service rabbitmq-server
    sudo rabbitmqctl await_startup
}

# A board's own vhost on the agents' bus (nova_fpga.deployment's name)
function nova_fpga_board_vhost {
    "$NOVA_FPGA_BIN/nova-fpga-config" board-vhost --vhost "$NOVA_FPGA_VHOST" \
        --board "$1"
}

# Apply `nova-fpga-config ARGS` to an ini file: iniset each option, iniadd
# the further values of a multi-valued one
function nova_fpga_apply {
    local file=$1
    shift
    local lines
    lines=$("$NOVA_FPGA_BIN/nova-fpga-config" "$@")
    local section option value
    local -A seen=()
    while IFS=$'\t' read -r section option value; do
        if [[ -n "${seen[$section/$option]:-}" ]]; then
            iniadd "$file" "$section" "$option" "$value"
        else
            iniset "$file" "$section" "$option" "$value"
            seen[$section/$option]=1
        fi
    done <<< "$lines"
}

# DevStack's nova is an editable install, found by an import finder, not
# by a path entry: this checkout's nova-virt-zynq/nova/virt/zynq (a
# namespace portion of nova, for nova.virt.zynq) would then make nova a
# namespace package without nova.virt's modules.  A path entry for
# $NOVA_DIR makes nova its own.
function install_nova_fpga_nova_path {
    local site
    site=$($PYTHON -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$NOVA_DIR" | sudo tee $site/nova-fpga-nova-dir.pth > /dev/null
}

function install_nova_fpga {
    setup_develop $NOVA_FPGA_DIR
    # nova-fpga-virt: the nova.virt.zynq module nova-compute loads the
    # driver by (compute_driver = zynq.ZynqDriver), a distribution of its own
    setup_develop $NOVA_FPGA_DIR/nova-virt-zynq
    install_nova_fpga_nova_path
    if [[ -z "$NOVA_FPGA_REAL_BOARDS" ]]; then
        # the board emulator, with Verilator for the modules' HDL.  Not
        # setup_develop: it reads the name from setup.cfg, and the
        # emulator has only pyproject.toml (awk fails, stack.sh exits)
        pip_install "$NOVA_FPGA_DIR/agent/emulator[hdl]"
    fi
}

function nova_fpga_add_vhost {
    if ! sudo rabbitmqctl list_vhosts | grep -qx "$1"; then
        sudo rabbitmqctl add_vhost "$1"
    fi
}

# Each board on a vhost of its own, its user with only the rights
# nova_fpga.deployment.board_permissions gives (serve its own RPC queues,
# publish its reports); nova-compute, as DevStack's own user, with all
# rights on each board's vhost
function configure_nova_fpga_rabbit {
    local boards=$1
    nova_fpga_add_vhost "$NOVA_FPGA_VHOST"
    local board
    for board in ${boards//,/ }; do
        local vhost
        vhost=$(nova_fpga_board_vhost $board)
        nova_fpga_add_vhost "$vhost"
        sudo rabbitmqctl set_permissions -p "$vhost" "$RABBIT_USERID" \
            ".*" ".*" ".*"
        local user=nova-fpga-$board
        if sudo rabbitmqctl list_users | grep -q "^$user\b"; then
            sudo rabbitmqctl change_password "$user" "$NOVA_FPGA_AGENT_PASSWORD"
        else
            sudo rabbitmqctl add_user "$user" "$NOVA_FPGA_AGENT_PASSWORD"
        fi
        local configure write read
        IFS=$'\t' read -r configure write read <<< \
            "$("$NOVA_FPGA_BIN/nova-fpga-config" board-permissions --board $board)"
        sudo rabbitmqctl set_permissions -p "$vhost" "$user" \
            "$configure" "$write" "$read"
    done
}

function configure_nova_fpga_nova {
    local boards=$1
    sudo install -d -o $STACK_USER $NOVA_CONF_DIR/policy.d
    cp "$("$NOVA_FPGA_BIN/nova-fpga-config" file nova-policy)" \
        $NOVA_CONF_DIR/policy.d/nova-fpga.yaml
    nova_fpga_apply $NOVA_CONF nova --boards "$boards" \
        --agents-transport-url \
        "$(nova_fpga_transport_url $RABBIT_USERID $RABBIT_PASSWORD)" \
        --policy-dir $NOVA_CONF_DIR/policy.d \
        $(nova_fpga_tls_args nova-fpga-compute)
    if [[ -n "$NOVA_FPGA_COMPUTE_HOST" ]]; then
        iniset $NOVA_CONF DEFAULT host "$NOVA_FPGA_COMPUTE_HOST"
    fi
}

# placement.conf (nova_fpga.deployment.placement): a claim that lost a
# race is answered as a conflict, not retried in its transaction, which on
# DevStack's MySQL gave one region to two servers (issue 20)
function configure_nova_fpga_placement {
    nova_fpga_apply $PLACEMENT_CONF placement
}

# Every project's default limit of region servers (NOVA_FPGA_REGION_QUOTA):
# keystone's registered limit on the regions' resource class, created or
# set, beside those DevStack's lib/nova registers for unified limits
function configure_nova_fpga_region_quota {
    local quota=$NOVA_FPGA_REGION_QUOTA
    if [[ ! "$quota" =~ ^(-1|[0-9]+)$ ]]; then
        die $LINENO "NOVA_FPGA_REGION_QUOTA=$quota: a number of regions" \
            "(-1: no limit) is needed"
    fi
    if [[ "$NOVA_USE_UNIFIED_LIMITS" != "True" ]] || \
            ! is_service_enabled n-api; then
        warn $LINENO "NOVA_FPGA_REGION_QUOTA=$quota is not registered:" \
            "nova counts regions with unified limits only" \
            "(NOVA_USE_UNIFIED_LIMITS=True)"
        return
    fi
    local resource id
    resource=$("$NOVA_FPGA_BIN/nova-fpga-config" region-limit)
    id=$(openstack --os-cloud devstack-system-admin registered limit list \
        --service nova --region $REGION_NAME --resource-name "$resource" \
        -f value -c ID)
    if [[ -n "$id" ]]; then
        openstack --os-cloud devstack-system-admin registered limit set \
            --default-limit $quota $id
    else
        openstack --os-cloud devstack-system-admin registered limit create \
            --service nova --default-limit $quota --region $REGION_NAME \
            "$resource"
    fi
}

# A comma-separated list of the values of both lists, the first's first,
# each once
function nova_fpga_merge_list {
    local merged=() value
    local -A seen=()
    for value in ${1//,/ } ${2//,/ }; do
        if [[ -z "${seen[$value]:-}" ]]; then
            merged+=("$value")
            seen[$value]=1
        fi
    done
    local IFS=,
    echo "${merged[*]}"
}

# neutron-server's ML2 for the boards (nova_fpga.deployment.neutron_ml2):
# the boards' mechanism driver before DevStack's, the VLAN type driver and
# the boards' VLAN range beside DevStack's, VLAN after DevStack's tenant
# network type (a tenant network is a board's when DevStack's type is vlan
# or an admin makes it a VLAN of the boards' physical network)
function configure_nova_fpga_neutron {
    local boards=$1
    local conf=/$Q_PLUGIN_CONF_FILE
    local -A before=()
    local key
    for key in ml2/mechanism_drivers ml2/type_drivers \
            ml2/tenant_network_types ml2_type_vlan/network_vlan_ranges; do
        before[$key]=$(iniget $conf ${key%/*} ${key#*/})
    done
    nova_fpga_apply $conf neutron-ml2 --boards "$boards" \
        --switch-driver "$NOVA_FPGA_SWITCH_DRIVER"
    for key in ml2/mechanism_drivers ml2/type_drivers \
            ml2_type_vlan/network_vlan_ranges; do
        iniset $conf ${key%/*} ${key#*/} "$(nova_fpga_merge_list \
            "$(iniget $conf ${key%/*} ${key#*/})" "${before[$key]}")"
    done
    iniset $conf ml2 tenant_network_types "$(nova_fpga_merge_list \
        "${before[ml2/tenant_network_types]}" \
        "$(iniget $conf ml2 tenant_network_types)")"
}

function configure_nova_fpga_glance {
    local protections=$GLANCE_CONF_DIR/property-protections-fpga.conf
    local store_dir=$DATA_DIR/glance/fpga
    mkdir -p $store_dir
    cp "$("$NOVA_FPGA_BIN/nova-fpga-config" file property-protections)" \
        $protections
    iniset $GLANCE_API_CONF DEFAULT enabled_backends \
        "$("$NOVA_FPGA_BIN/nova-fpga-config" glance-backends \
        "$(iniget $GLANCE_API_CONF DEFAULT enabled_backends)")"
    nova_fpga_apply $GLANCE_API_CONF glance --store-dir $store_dir \
        --property-protections $protections \
        --shell-manifest $NOVA_FPGA_SHELL_MANIFEST
    "$NOVA_FPGA_BIN/nova-fpga-config" glance-paste $GLANCE_API_PASTE_INI
    local creators=()
    local project
    for project in ${NOVA_FPGA_BITSTREAM_CREATORS//,/ }; do
        creators+=(--creator-project
            "$(get_or_create_project "$project" default)")
    done
    local policy=$GLANCE_CONF_DIR/policy.yaml
    touch $policy
    sed -i '/^"fpga:bitstream:create"/d' $policy
    "$NOVA_FPGA_BIN/nova-fpga-config" glance-policy "${creators[@]}" >> $policy
}

function configure_nova_fpga_agents {
    local boards=$1
    sudo install -d -o $STACK_USER $NOVA_FPGA_CONF_DIR
    local board
    for board in ${boards//,/ }; do
        mkdir -p $NOVA_FPGA_STATE_DIR/$board
        nova_fpga_apply $NOVA_FPGA_CONF_DIR/agent-$board.conf agent \
            --board $board --transport-url \
            "$(nova_fpga_transport_url nova-fpga-$board $NOVA_FPGA_AGENT_PASSWORD $board)" \
            --state-dir $NOVA_FPGA_STATE_DIR/$board \
            --manifest $NOVA_FPGA_SHELL_MANIFEST --backend sim \
            --hdl-dir $NOVA_FPGA_DIR/hdl $(nova_fpga_tls_args nova-fpga-$board)
    done
}

function start_nova_fpga_agents {
    local board
    for board in ${1//,/ }; do
        run_process nova-fpga-agent-$board \
            "$NOVA_FPGA_BIN/nova-fpga-agent --config-file $NOVA_FPGA_CONF_DIR/agent-$board.conf"
    done
}

function stop_nova_fpga_agents {
    local board
    for board in ${1//,/ }; do
        stop_process nova-fpga-agent-$board
    done
}

# The fpga.region flavor and the sample images, through Glance's import
function create_nova_fpga_samples {
    local manage="$NOVA_FPGA_BIN/nova-fpga-manage --os-cloud devstack-admin"
    local shell_id
    shell_id=$($PYTHON -c 'import json, sys; print(json.load(open(sys.argv[1]))["shell_id"])' \
        $NOVA_FPGA_SHELL_MANIFEST)
    $manage flavor create
    local samples=$NOVA_FPGA_STATE_DIR/samples
    local name path
    while IFS=$'\t' read -r name path; do
        $manage image create $name $path --shell-id $shell_id --public
    done <<< "$("$NOVA_FPGA_BIN/nova-fpga-config" samples --out $samples \
        --manifest $NOVA_FPGA_SHELL_MANIFEST)"
    if [[ -r $NOVA_FPGA_REAL_BITSTREAMS/pr_0_add.bit ]]; then
        $manage image create pr-0-add $NOVA_FPGA_REAL_BITSTREAMS/pr_0_add.bit \
            --shell-id $shell_id --public
    fi
}

function clean_nova_fpga {
    local boards=$1
    rm -rf $NOVA_FPGA_STATE_DIR
    sudo rm -rf $NOVA_FPGA_CONF_DIR
    local board
    for board in ${boards//,/ }; do
        sudo rabbitmqctl delete_user nova-fpga-$board || true
        sudo rabbitmqctl delete_vhost "$(nova_fpga_board_vhost $board)" || true
    done
    sudo rabbitmqctl delete_vhost "$NOVA_FPGA_VHOST" || true
}

if is_service_enabled nova-fpga; then
    NOVA_FPGA_BOARD_LIST=$(nova_fpga_boards)
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing nova-fpga"
        install_nova_fpga
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring nova-fpga"
        if [[ "$NOVA_FPGA_TLS" == "True" ]]; then
            configure_nova_fpga_tls $NOVA_FPGA_BOARD_LIST
        fi
        configure_nova_fpga_rabbit $NOVA_FPGA_BOARD_LIST
        configure_nova_fpga_nova $NOVA_FPGA_BOARD_LIST
        if is_service_enabled placement-api; then
            configure_nova_fpga_placement
        fi
        if [[ -n "$NOVA_FPGA_REGION_QUOTA" ]]; then
            configure_nova_fpga_region_quota
        fi
        configure_nova_fpga_glance
        if is_service_enabled q-svc neutron-api; then
            configure_nova_fpga_neutron $NOVA_FPGA_BOARD_LIST
        fi
        if [[ -z "$NOVA_FPGA_REAL_BOARDS" ]]; then
            configure_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
            # before nova-compute starts, so it finds them answering
            start_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        if [[ "$NOVA_FPGA_SAMPLE_IMAGES" == "True" ]]; then
            echo_summary "Creating the FPGA flavor and sample bitstreams"
            create_nova_fpga_samples
        fi
    fi
    if [[ "$1" == "unstack" ]]; then
        stop_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
    fi
    if [[ "$1" == "clean" ]]; then
        clean_nova_fpga $NOVA_FPGA_BOARD_LIST
    fi
fi
