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
 * Register windows, DMA buffers and interrupts, opened by path so that one
 * binary runs on a board and against the emulated engine.
 *
 * Memory: dm_map() maps a path read/write with O_SYNC: /dev/uioN (map 0 at
 * offset 0: the AXI DMA's registers, uncached device memory) and
 * /dev/udmabufN (u-dma-buf: O_SYNC gives an uncached mapping) on a board;
 * regular files in /dev/shm in the emulator.
 *
 * Interrupts (UIO, Documentation/driver-api/uio-howto.rst): read() of 4 bytes
 * blocks until an interrupt and returns the total count; write() of a 4-byte
 * 1 re-enables the interrupt, which uio_pdrv_genirq masked when it fired.
 * dm_irq_open() opens a character device (a board's /dev/uioN) with open(),
 * and a Unix SOCK_SEQPACKET socket (the emulated engine's stand-in) with
 * connect(); after that the mover uses the same read()/write()/poll() on
 * either, and the stand-in answers them exactly as UIO does.
 */
#ifndef NOVA_FPGA_UIO_H
#define NOVA_FPGA_UIO_H

#include <stddef.h>
#include <stdint.h>

void *dm_map(const char *path, size_t size, char *err, size_t errlen);
int dm_irq_open(const char *path, char *err, size_t errlen);
/* non-blocking drain: returns the last count read, 0 if none was pending */
uint32_t dm_irq_drain(int fd);
int dm_irq_rearm(int fd);

#endif
