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
 * The control protocol: one command a line, one answer ending with a line
 * "ok" or "error <why>" (lines before it carry data).  Commands:
 *   route add <vlan> <region> <egress vlan|->   steer a VLAN to a region
 *   route del <vlan>
 *   routes                        "route <vlan> <region> <egress|->" lines
 *   regions                       "region <name> <index> healthy <0|1>
 *                                  decoupled <0|1> ring <n> slot <bytes>"
 *   decouple <region>             drop its frames (counted) from now on
 *   couple <region>               fresh rings (nothing in flight survives),
 *                                 then forward again
 *   reset-counters <region>
 *   ping
 *   stop                          the daemon exits (after answering)
 * The daemon keeps its routes and states when a controller disconnects; a
 * new controller reads them back with "routes"/"regions".
 */
#ifndef NOVA_FPGA_CTL_H
#define NOVA_FPGA_CTL_H

#include <stddef.h>

#include "mover.h"

/* Execute one line; writes the answer (with its final newline) to out.
 * Returns 1 for "stop", 0 otherwise. */
int dm_control(struct dm_mover *m, const char *line, char *out, size_t outlen);
/* the commands that restore the current routes and decoupled regions
 * (the --state file) */
void dm_control_dump_state(const struct dm_mover *m, char *out, size_t outlen);

#endif
