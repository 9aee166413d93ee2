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
 * The mover's counters: a file (in /dev/shm or /run) that the mover maps and
 * writes, and anyone may map or read while it runs.  One writer (the mover's
 * thread); every field is a naturally aligned 64-bit word written with an
 * atomic store, so a reader never sees a torn value (ARMv7 too: ldrexd/strexd).
 * The layout is fixed (little-endian, no padding surprises) and versioned:
 * agent/nova_fpga_agent/datamover.py reads it with struct.
 */
#ifndef NOVA_FPGA_DM_COUNTERS_H
#define NOVA_FPGA_DM_COUNTERS_H

#include <stdint.h>

#define DM_COUNTERS_MAGIC   0x4D444E46u   /* "FNDM" little-endian */
#define DM_COUNTERS_VERSION 1u
#define DM_MAX_REGIONS      16
#define DM_NAME_LEN         32

/* per region; the order is the file's */
enum dm_region_counter {
	DMC_FRAMES_IN,        /* frames handed to the region's MM2S ring */
	DMC_BYTES_IN,         /* their bytes (untagged, as the module sees them) */
	DMC_FRAMES_OUT,       /* frames of the module sent out (tagged) */
	DMC_BYTES_OUT,        /* their bytes as sent (with the egress tag) */
	DMC_DROP_RING_FULL,   /* MM2S ring or TX ring full */
	DMC_DROP_DMA_ERROR,   /* in flight when the channel errored, or a
	                         descriptor with an error status */
	DMC_DROP_OVERSIZE,    /* frame larger than a slot, or a module frame
	                         spanning descriptors */
	DMC_DROP_DECOUPLED,   /* frames in or out while the region is decoupled */
	DMC_DROP_NO_EGRESS,   /* module output with no egress VLAN */
	DMC_DMA_RESETS,       /* channel resets after an error */
	DMC_IRQS,             /* interrupts taken */
	DMC_DECOUPLED,        /* 1 while decoupled (a state, not a count) */
	DMC_REGION_COUNT
};

enum dm_global_counter {
	DMG_RX_FRAMES,        /* frames read from the interface */
	DMG_DROP_NO_ROUTE,    /* unknown or missing VLAN */
	DMG_RX_TRUNCATED,     /* frames the ring truncated (counted oversize too) */
	DMG_KERNEL_DROPS,     /* PACKET_STATISTICS tp_drops */
	DMG_TX_FRAMES,
	DMG_POLL_ROUNDS,      /* busy-poll rounds */
	DMG_SLEEPS,           /* times the mover went to sleep on interrupts */
	DMG_HEARTBEAT,        /* incremented at least once a second while alive */
	DMG_COUNT = 16
};

struct dm_region_counters {
	char name[DM_NAME_LEN];
	uint64_t c[DMC_REGION_COUNT];
	uint64_t spare[16 - DMC_REGION_COUNT];
};

struct dm_counters_file {
	uint32_t magic;
	uint32_t version;
	uint32_t nregions;
	uint32_t pid;
	uint64_t g[DMG_COUNT];
	struct dm_region_counters r[DM_MAX_REGIONS];
};

_Static_assert(DMC_REGION_COUNT <= 16, "region counters");
_Static_assert(sizeof(struct dm_region_counters) == DM_NAME_LEN + 16 * 8, "layout");
_Static_assert(sizeof(struct dm_counters_file) ==
	       16 + DMG_COUNT * 8 + DM_MAX_REGIONS * (DM_NAME_LEN + 128), "layout");

static inline void ctr_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static inline void ctr_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

#endif
