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
# DevStack's plugin contract: doc/source/plugins.rst.  This file dispatches
# DevStack's phases; the functions are in lib/nova-fpga.

source $NOVA_FPGA_DIR/devstack/lib/nova-fpga

if is_service_enabled nova-fpga; then
    NOVA_FPGA_BOARD_LIST=$(nova_fpga_boards)
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing nova-fpga"
        install_nova_fpga
        if is_service_enabled q-svc neutron-api; then
            # read by configure_neutron, which stack.sh runs next
            nova_fpga_ml2_variables
        fi
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring nova-fpga"
        # each part where its service runs: on a compute/board node only
        # nova-compute's part and the boards
        if is_service_enabled rabbit; then
            if [[ "$NOVA_FPGA_TLS" == "True" ]]; then
                configure_nova_fpga_tls $NOVA_FPGA_BOARD_LIST
            fi
            configure_nova_fpga_rabbit \
                "$(nova_fpga_merge_list $NOVA_FPGA_BOARD_LIST $NOVA_FPGA_REMOTE_BOARDS)"
        fi
        if is_service_enabled n-api n-sch n-cond; then
            # stack.sh edits nova.conf in the background meanwhile
            # (neutron's part of it); two writers of one file lose lines
            async_wait configure_neutron_nova
            configure_nova_fpga_scheduler
        fi
        if is_service_enabled n-fpga; then
            configure_nova_fpga_compute $NOVA_FPGA_BOARD_LIST
        fi
        if is_service_enabled placement-api; then
            configure_nova_fpga_placement
        fi
        if [[ -n "$NOVA_FPGA_REGION_QUOTA" ]]; then
            configure_nova_fpga_region_quota
        fi
        if is_service_enabled g-api; then
            configure_nova_fpga_glance
        fi
        if is_service_enabled q-svc neutron-api; then
            configure_nova_fpga_neutron
        fi
        if [[ -z "$NOVA_FPGA_REAL_BOARDS" ]]; then
            configure_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
            # before nova-compute starts, so it finds them answering
            start_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        if [[ -z "$NOVA_FPGA_REAL_BOARDS" ]]; then
            restart_nova_fpga_agents_merged_later $NOVA_FPGA_BOARD_LIST
        fi
        if is_service_enabled n-fpga; then
            echo_summary "Starting the boards' nova-compute (n-fpga)"
            start_nova_fpga_compute
            wait_for_nova_fpga_compute
        fi
        # once per cloud: where Glance's API runs
        if [[ "$NOVA_FPGA_SAMPLE_IMAGES" == "True" ]] && is_service_enabled g-api; then
            echo_summary "Creating the FPGA flavor and sample bitstreams"
            create_nova_fpga_samples
        fi
    fi
    if [[ "$1" == "unstack" ]]; then
        stop_nova_fpga_compute
        stop_nova_fpga_agents $NOVA_FPGA_BOARD_LIST
    fi
    if [[ "$1" == "clean" ]]; then
        clean_nova_fpga \
            "$(nova_fpga_merge_list $NOVA_FPGA_BOARD_LIST $NOVA_FPGA_REMOTE_BOARDS)"
    fi
fi
