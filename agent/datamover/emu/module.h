// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

/*
 *
 * A Verilated module (libregion.so of hdl/bridge/region_bridge.cpp, built
 * and cached by agent/emulator/nova_fpga_emulator/hdl_bridge.py) behind the
 * emulated DMA, as an emu_module (sgemu.h).  Each run pushes the packets
 * MM2S delivered, clocks the module until they all went in and no beat has
 * moved for 64 cycles, and the engine pulls what it sent into S2MM's queue.
 * Simulated time stands still while the engine has nothing to move.
 */
#ifndef NOVA_FPGA_SGEMU_MODULE_H
#define NOVA_FPGA_SGEMU_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "sgemu.h"

#define VMOD_SCRATCH (1u << 20)  /* output frames beyond this are not expected */

struct vmod;

/* dlopen() the library, create and reset the module; fills *ops */
struct vmod *vmod_open(const char *path, struct emu_module *ops, char *err, size_t errlen);
void vmod_close(struct vmod *m);
/* cycles without a beat after which the module holds nothing (its catalogue
 * entry's quiet_cycles; 0: QUIET_CYCLES) */
void vmod_set_quiet(struct vmod *m, uint32_t cycles);
/* AXI4-Lite: the response (0 OKAY, 2 SLVERR, 3 DECERR, -1 no answer) */
int vmod_axil_write(struct vmod *m, uint32_t addr, uint32_t value);
int vmod_axil_read(struct vmod *m, uint32_t addr, uint32_t *value);
uint64_t vmod_cycles(const struct vmod *m);
unsigned vmod_data_width(const struct vmod *m);
void vmod_counts(const struct vmod *m, uint64_t *in, uint64_t *out);
/* the region's reset (aresetn low for `cycles`), then `settle` cycles run */
void vmod_reset(struct vmod *m, uint32_t cycles, uint64_t settle);
/* the region's decoupler (a slot build): request, and its status */
void vmod_set_decoupled(struct vmod *m, int on);
int vmod_decoupled(const struct vmod *m);

#endif
