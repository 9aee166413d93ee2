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
 * One region's AXI DMA in scatter-gather mode (PG021): an MM2S ring (frames to
 * the module) and an S2MM ring (frames from it), both in the region's DMA
 * buffer (u-dma-buf on a board; a file in /dev/shm in the emulator).
 *
 * Buffer layout (offsets from the start of the buffer; physical address =
 * phys + offset):
 *   [MM2S descriptors: n x 64 B][S2MM descriptors: n x 64 B]
 *   [MM2S slots: n x slot B][S2MM slots: n x slot B]
 * One descriptor per frame (SOF|EOF), a slot of `slot` bytes each (9,216 by
 * default: a 9,018-byte frame fits).  At most n-1 descriptors of a ring are
 * given to the DMA at once, so the tail always moves to a new descriptor and
 * the engine never fetches one it completed before we reaped it (PG021:
 * fetching a descriptor whose Cmplt bit is set is an SGIntErr).
 */
#ifndef NOVA_FPGA_SGDMA_H
#define NOVA_FPGA_SGDMA_H

#include <stddef.h>
#include <stdint.h>

#include "pg021.h"

#define SG_DEFAULT_SLOT 9216u
#define SG_MAX_RING     1024u

struct sg_ring {
	uint32_t n;          /* descriptors (power of two) */
	uint32_t prod;       /* next descriptor to give (free-running) */
	uint32_t cons;       /* next descriptor to reap (free-running) */
	uint32_t tail_written; /* prod when TAILDESC was last written */
	uint32_t desc_off;   /* offset of descriptor 0 in the buffer */
	uint32_t slot_off;   /* offset of slot 0 */
	uint32_t in_packet;  /* S2MM: inside a packet spanning descriptors */
};

struct sg_dma {
	volatile uint32_t *regs;  /* the register window (UIO map 0) */
	uint8_t *buf;             /* the DMA buffer mapping */
	uint64_t phys;            /* its bus address */
	size_t size;              /* its bytes */
	uint32_t slot;            /* bytes per slot (multiple of 64) */
	uint32_t len_mask;        /* (1 << c_sg_length_width) - 1 */
	struct sg_ring tx;        /* MM2S */
	struct sg_ring rx;        /* S2MM */
	uint32_t *tx_meta;        /* per MM2S descriptor: tag of its frame */
	/* FIFO of tags of frames handed to the module, matched in order to its
	 * output (one-for-one modules); the last tag when it runs dry */
	uint32_t *meta_fifo;
	uint32_t meta_head, meta_tail, last_meta;
	int running;
	/* called while waiting for a register to change (reset): tests step the
	 * in-process emulated engine here; NULL on a board */
	void (*wait_hook)(void *ctx);
	/* emulation only: the emulated engine's socket, rung after a TAILDESC
	 * store while the engine sleeps (pg021.h, SGEMU_ASLEEP_OFF); -1 on a
	 * board */
	int doorbell_fd;
	uint64_t doorbells;
	void *wait_ctx;
	char err[160];            /* last error, for the log */
};

enum sg_submit_result { SG_OK = 0, SG_FULL, SG_OVERSIZE };

/* Lay out and attach the rings: n descriptors per direction (0: the largest
 * power of two <= SG_MAX_RING that fits).  Returns 0, or -1 with d->err. */
int sg_init(struct sg_dma *d, volatile uint32_t *regs, uint8_t *buf,
	    uint64_t phys, size_t size, uint32_t n, uint32_t slot,
	    unsigned length_width);
void sg_free(struct sg_dma *d);

/* Reset the whole AXI DMA (PG021: either channel's Reset resets both), build
 * both rings, start both channels, give the S2MM ring its buffers.
 * Returns 0, or -1 with d->err (the channels did not come out of reset or
 * did not run). */
int sg_start(struct sg_dma *d);
/* Stop both channels (RS = 0) and reset. */
void sg_stop(struct sg_dma *d);

/* Copy a frame (a then b: the MACs and what follows the stripped tag) into
 * the next MM2S slot; started by sg_tx_flush. */
enum sg_submit_result sg_submit(struct sg_dma *d, const uint8_t *a, uint32_t alen,
				const uint8_t *b, uint32_t blen, uint32_t meta);
/* Start what was submitted: one TAILDESC store. */
void sg_tx_flush(struct sg_dma *d);
/* Reap completed MM2S descriptors; returns how many, *errors those with an
 * error status. */
uint32_t sg_tx_reap(struct sg_dma *d, uint32_t *errors);

/* S2MM completions: for each complete frame call deliver(ctx, data, len,
 * meta); descriptors with error status or frames spanning descriptors are
 * counted in *errors / *oversize and dropped.  Re-gives the descriptors and
 * writes TAILDESC once.  Returns descriptors reaped (at most budget). */
typedef void (*sg_deliver_fn)(void *ctx, const uint8_t *data, uint32_t len,
			      uint32_t meta);
uint32_t sg_rx_poll(struct sg_dma *d, uint32_t budget, sg_deliver_fn deliver,
		    void *ctx, uint32_t *errors, uint32_t *oversize);

/* DMASR of both channels: nonzero error bits, or a channel halted while it
 * should run.  Returns the or of the error bits (DMASR_HALTED if halted
 * without an error bit), 0 when healthy. */
uint32_t sg_check(struct sg_dma *d, uint32_t *mm2s_sr, uint32_t *s2mm_sr);
/* Acknowledge interrupts: write 1 to the DMASR IRQ bits that are set
 * (PG021: IOC_Irq/Dly_Irq/Err_Irq are R/WC). */
void sg_ack_irq(struct sg_dma *d);
/* frames in the MM2S ring not yet reaped */
static inline uint32_t sg_tx_inflight(const struct sg_dma *d)
{
	return d->tx.prod - d->tx.cons;
}
static inline uint32_t sg_tx_space(const struct sg_dma *d)
{
	return d->tx.n - 1 - (d->tx.prod - d->tx.cons);
}
/* 1 if the next S2MM descriptor is complete (cheap: one load) */
int sg_rx_ready(const struct sg_dma *d);

static inline struct pg021_desc *sg_desc(const struct sg_dma *d,
					 const struct sg_ring *r, uint32_t i)
{
	return (struct pg021_desc *)(d->buf + r->desc_off +
				     (size_t)(i & (r->n - 1)) * sizeof(struct pg021_desc));
}

#endif
