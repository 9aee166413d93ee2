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
 * The mover's core, without sockets: steering by the outer 802.1Q tag,
 * per-region SG DMA, egress re-tagging, counters, decoupling, error
 * recovery.  main.c connects it to AF_PACKET rings, UIO and the control
 * socket; the unit tests connect it to the in-process emulated engine and a
 * memory TX sink.
 */
#ifndef NOVA_FPGA_MOVER_H
#define NOVA_FPGA_MOVER_H

#include <stdint.h>

#include "counters.h"
#include "sgdma.h"

#define DM_NO_VLAN      0xFFFFu
#define DM_META_EGRESS  (1u << 31)   /* meta: an egress VLAN is set */

struct dm_region {
	char name[DM_NAME_LEN];
	struct sg_dma dma;
	int decoupled;
	int healthy;           /* DMA started and not in error */
	int irq_fd;            /* UIO (or its emulated stand-in); -1: none */
	uint64_t *c;           /* counters (the shared file's row) */
	uint64_t last_reset_ns;
	uint64_t full_since_ns;   /* MM2S ring full since (0: not full) */
};

/* where output goes: a slot to write a frame of len bytes into, NULL when
 * the TX ring is full; commit sends it with the next flush */
struct dm_tx_ops {
	uint8_t *(*alloc)(void *ctx, uint32_t len);
	void (*commit)(void *ctx, uint32_t len);
	void (*flush)(void *ctx);
};

struct dm_mover {
	struct dm_region region[DM_MAX_REGIONS];
	int nregions;
	/* ingress VLAN -> region index (-1: none) and egress VLAN */
	int8_t route_region[4096];
	uint16_t route_egress[4096];
	struct dm_counters_file *ctr;
	const struct dm_tx_ops *tx;
	void *tx_ctx;
	uint32_t max_frame;    /* largest tagged frame accepted (9,018 B) */
	/* A full MM2S ring holds the interface's RX ring (the frame waits
	 * there, and so do the frames behind it) for up to stall_ns; after
	 * that the region's frames are dropped (ring full) until it drains.
	 * 0: drop at once.  now_ns: the main loop's clock, updated per round. */
	uint64_t stall_ns, now_ns;
	/* set by dm_ingress when it left a frame in the interface's ring (its
	 * region's ring full, within stall_ns); the main loop clears it */
	int held;
	void (*log)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

void dm_init(struct dm_mover *m, struct dm_counters_file *ctr);
/* add a region whose DMA is already sg_init'ed; returns its index or -1 */
int dm_add_region(struct dm_mover *m, const char *name, int irq_fd);
int dm_find_region(const struct dm_mover *m, const char *name);
/* start (or restart) a region's DMA; 0 on success */
int dm_region_start(struct dm_mover *m, int r);

int dm_route_add(struct dm_mover *m, unsigned vlan, int region, unsigned egress_vlan);
int dm_route_del(struct dm_mover *m, unsigned vlan);
/* drop the region's frames from now on (counted); couple restarts its DMA
 * with fresh rings, so nothing in flight for the previous holder survives */
void dm_decouple(struct dm_mover *m, int r);
int dm_couple(struct dm_mover *m, int r);
void dm_reset_counters(struct dm_mover *m, int r);

/* One frame from the interface.  tci: the tag the kernel took off
 * (TP_STATUS_VLAN_VALID), or -1 when the frame carries its tag (if any) in
 * its data.  Returns 1 when the frame should be offered again later (its
 * region's ring is full, within stall_ns), 0 when it was taken or dropped. */
int dm_ingress(struct dm_mover *m, const uint8_t *frame, uint32_t len, int tci,
		uint32_t wire_len);
/* start everything submitted since the last call (one TAILDESC per region) */
void dm_ingress_flush(struct dm_mover *m);
/* Collect output of every region (budget frames each), check DMA health and
 * recover; returns the work done (frames and descriptors). */
uint32_t dm_poll(struct dm_mover *m, uint32_t budget);
/* for a region: anything in flight (MM2S not reaped) */
int dm_region_busy(const struct dm_mover *m, int r);
/* reset a region's DMA after an error: count, log, restart; others untouched */
void dm_region_recover(struct dm_mover *m, int r, uint32_t err);

#endif
