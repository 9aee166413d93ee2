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

# The nova-fpga reference shell and its partial bitstreams: Vivado DFX, non-project mode.
#
#   vivado -mode batch -source hdl/vivado/build.tcl -tclargs [BUILD_DIR]
#
# (build.sh runs this, then writes the shell manifest from the partials.)
# Vivado 2020.2 or later, part xc7z020clg400-1 (PYNQ-Z2).  Steps:
#   1. static: the block design (shell_bd.tcl) and the shell RTL, the two
#      partitions as black boxes            -> static_synth.dcp
#   2. every module for every region, out of context, with its catalogue
#      MODULE_ID / MODULE_VERSION           -> rm_<region>_<module>_synth.dcp
#   3. every configuration (settings.tcl) placed and routed; the first one
#      locks the static routing for the others; pr_verify across all
#   4. bitstreams in BUILD_DIR/out: the full one (nova_shell.bit, UserID
#      0xFFFFFFFF) and a partial per region and module (<region>_<module>.bit,
#      UserID = the module's ID; <region>_blank.bit empties a region), each
#      with a .bin for the PCAP.
#
# Not run on the machine this was written on (no Vivado there): see README.md.

set nova_script_dir [file dirname [file normalize [info script]]]
source [file join $nova_script_dir settings.tcl]
source [file join $nova_script_dir shell_bd.tcl]

if {[llength $argv] > 0} {
    set nova_build [file normalize [lindex $argv 0]]
} else {
    set nova_build [file join $nova_script_dir build]
}
set nova_out [file join $nova_build out]
file mkdir $nova_build $nova_out

# The Verilog files of a module (relative to hdl/rtl, or absolute), each of
# which must exist.
proc nova_module_sources {module} {
    global nova_modules nova_rtl
    set files {}
    foreach source [dict get $nova_modules $module sources] {
        set file [file join $nova_rtl $source]
        if {![file exists $file]} {
            error "module $module: $file does not exist"
        }
        lappend files $file
    }
    return $files
}

# Where a module's `include files are (the catalogue's generated offsets).
proc nova_module_include_dirs {module} {
    global nova_modules nova_rtl
    set dirs {}
    foreach dir [dict get $nova_modules $module include_dirs] {
        lappend dirs [file normalize [file join $nova_rtl $dir]]
    }
    return $dirs
}

# A 32-bit value as Vivado wants it for a Verilog generic and for the USERID.
proc nova_verilog_hex {value} {
    return [format "32'h%08X" $value]
}
proc nova_userid {value} {
    return [format "0x%08X" $value]
}

proc nova_checkpoint {name} {
    global nova_build
    return [file join $nova_build $name.dcp]
}

# 1. the static shell
proc nova_synth_static {} {
    global nova_part nova_board_part nova_build nova_static_sources
    create_project -in_memory -part $nova_part
    # the board files are optional: every PS7 setting is explicit in shell_bd.tcl
    if {[llength [get_board_parts -quiet $nova_board_part]] > 0} {
        set_property board_part $nova_board_part [current_project]
    }
    set_property target_language Verilog [current_project]
    nova_create_shell_bd [file join $nova_build bd] shell_bd
    set bd [get_files shell_bd.bd]
    # the block design's IP is synthesized with the static top (no IP checkpoints)
    set_property synth_checkpoint_mode None $bd
    generate_target all $bd
    read_verilog $nova_static_sources
    synth_design -top nova_shell_top -part $nova_part -verilog_define RM_BLACK_BOX
    write_checkpoint -force [nova_checkpoint static_synth]
    close_project
}

# 2. one module for one region, out of context
proc nova_synth_module {region module} {
    global nova_part nova_regions nova_modules nova_data_width nova_axil_addr_width
    global nova_script_dir
    set partition [dict get $nova_regions $region partition]
    create_project -in_memory -part $nova_part
    read_verilog [concat [nova_module_sources $module] \
        [list [file join $nova_script_dir rtl $partition.v]]]
    synth_design -mode out_of_context -top $partition -part $nova_part \
        -verilog_define REGION_MODULE=[dict get $nova_modules $module top] \
        -include_dirs [nova_module_include_dirs $module] \
        -generic DATA_WIDTH=$nova_data_width \
        -generic AXIL_ADDR_WIDTH=$nova_axil_addr_width \
        -generic MODULE_ID=[nova_verilog_hex [dict get $nova_modules $module module_id]] \
        -generic MODULE_VERSION=[nova_verilog_hex [dict get $nova_modules $module version]]
    write_checkpoint -force [nova_checkpoint rm_${region}_${module}_synth]
    close_project
}

# 4. bitstreams of the configuration now open; each partial is written once
set nova_written {}
proc nova_write_bitstreams {config full} {
    global nova_regions nova_modules nova_out nova_written nova_undeclared_module_id
    if {$full} {
        set_property BITSTREAM.CONFIG.USERID [nova_userid $nova_undeclared_module_id] [current_design]
        write_bitstream -force -no_partial_bitfile -bin_file [file join $nova_out nova_shell.bit]
    }
    foreach region [dict keys $nova_regions] {
        set module [dict get $config $region]
        set name ${region}_${module}
        if {[lsearch -exact $nova_written $name] >= 0} {
            continue
        }
        if {$module eq "blank"} {
            set userid $nova_undeclared_module_id
        } else {
            set userid [dict get $nova_modules $module module_id]
        }
        # the UserID is per bitstream: set it before each region's partial;
        # USR_ACCESS carries it into the configuration data (the .bin)
        set_property BITSTREAM.CONFIG.USERID [nova_userid $userid] [current_design]
        set_property BITSTREAM.CONFIG.USR_ACCESS [nova_userid $userid] [current_design]
        write_bitstream -force -cell [dict get $nova_regions $region cell] -bin_file \
            [file join $nova_out $name.bit]
        lappend nova_written $name
    }
}

proc nova_place_and_route {name} {
    global nova_build
    opt_design
    place_design
    route_design
    report_timing_summary -file [file join $nova_build ${name}_timing.rpt]
    report_utilization -file [file join $nova_build ${name}_utilization.rpt]
    write_checkpoint -force [nova_checkpoint ${name}_routed]
}

# 3. the configurations
proc nova_implement {} {
    global nova_regions nova_configurations
    set first 1
    set routed {}
    foreach config $nova_configurations {
        set name [dict get $config name]
        if {$first} {
            open_checkpoint [nova_checkpoint static_synth]
            foreach region [dict keys $nova_regions] {
                set cell [dict get $nova_regions $region cell]
                read_checkpoint -cell $cell \
                    [nova_checkpoint rm_${region}_[dict get $config $region]_synth]
                set_property HD.RECONFIGURABLE true [get_cells $cell]
            }
            foreach region [dict keys $nova_regions] {
                read_xdc [dict get $nova_regions $region pblock_xdc]
            }
        } else {
            open_checkpoint [nova_checkpoint static_routed]
            foreach region [dict keys $nova_regions] {
                set cell [dict get $nova_regions $region cell]
                set module [dict get $config $region]
                if {$module eq "blank"} {
                    # a greybox: the region's ports tied off, nothing inside
                    update_design -cell $cell -buffer_ports
                } else {
                    read_checkpoint -cell $cell [nova_checkpoint rm_${region}_${module}_synth]
                }
            }
        }
        nova_place_and_route $name
        nova_write_bitstreams $config $first
        lappend routed [nova_checkpoint ${name}_routed]
        if {$first} {
            # keep the static routing for every other configuration
            foreach region [dict keys $nova_regions] {
                update_design -cell [dict get $nova_regions $region cell] -black_box
            }
            lock_design -level routing
            write_checkpoint -force [nova_checkpoint static_routed]
            set first 0
        }
        close_project
    }
    pr_verify -initial [lindex $routed 0] -additional [lrange $routed 1 end] \
        -file [file join $::nova_build pr_verify.rpt]
}

nova_synth_static
foreach region [dict keys $nova_regions] {
    foreach module [dict get $nova_regions $region modules] {
        nova_synth_module $region $module
    }
}
nova_implement
puts "nova-fpga: bitstreams in $nova_out"
