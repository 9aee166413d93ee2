# Generated from the module catalogue (nova_fpga/catalogue/modules/loopback.toml, nova_fpga/catalogue/modules/vtc.toml) by hdl/generate.py: do not edit.
#
# Reconfigurable modules: name -> Verilog top, module ID and version,
# sources and include directories (relative to hdl/rtl, or absolute).
# Sourced by settings.tcl.
set nova_modules [dict create \
    loopback [dict create \
        top region_loopback \
        module_id 0x4E460001 \
        version 0x00010000 \
        sources {region_loopback.v region_regs.v axis_register.v axil_reg_if.v} \
        include_dirs {. generated}] \
    vtc [dict create \
        top region_vtc \
        module_id 0x4E460002 \
        version 0x00010000 \
        sources {region_vtc.v vtc_parser.v vtc_signatures.v vtc_flow_table.v vtc_flow_ram.v vtc_port_guess.v vtc_class_counters.v vtc_names.v vtc_name_extract.v vtc_name_match.v vtc_app_flows.v vtc_frame_counters.v region_regs.v axis_register.v axil_reg_if.v} \
        include_dirs {. generated}]]
